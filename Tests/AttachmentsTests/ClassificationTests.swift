import Testing

@testable import AttachmentsPlugin

@Suite("Classification by content")
struct ClassificationTests {
    @Test(
        "sendable images are recognised by their magic bytes",
        arguments: [
            (Samples.png, ImageFormat.png), (Samples.jpeg, .jpeg), (Samples.gif, .gif), (Samples.webp, .webp),
        ])
    func sendableImages(bytes: [UInt8], format: ImageFormat) {
        #expect(Classification.of(bytes) == .image(format))
    }

    @Test(
        "other image formats are recognised but kept apart",
        arguments: [
            (Samples.bmp, OtherImageFormat.bmp), (Samples.tiff, .tiff), (Samples.heic, .heic), (Samples.svg, .svg),
        ])
    func otherImages(bytes: [UInt8], format: OtherImageFormat) {
        #expect(Classification.of(bytes) == .otherImage(format))
    }

    @Test func utf8TextIsText() {
        let bytes = Array("# Notes\nñandú 🐦 and `code`\n".utf8)
        #expect(Classification.of(bytes) == .text("# Notes\nñandú 🐦 and `code`\n"))
    }

    @Test func anEmptyFileIsEmptyText() {
        #expect(Classification.of([]) == .text(""))
    }

    @Test func aNulByteMakesItBinary() {
        #expect(Classification.of(Array("looks like text\u{0}but is not".utf8)) == .binary(why: "binary"))
    }

    /// Text saved on Windows: Windows-1252 (Latin-1's superset) and UTF-16 with its byte-order
    /// mark are read as the text they are, where they were refused as binary.
    @Test func legacyTextIsText() {
        #expect(Classification.of([0x63, 0x61, 0x66, 0xE9, 0x0A, 0x80]) == .text("café\n€"))
        #expect(Classification.of([0x47, 0x72, 0xFC, 0xDF, 0x65, 0x3B, 0x93, 0x71, 0x94]) == .text("Grüße;“q”"))
        #expect(Classification.of([0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00, 0x0A, 0x00]) == .text("hi\n"))
        #expect(Classification.of([0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9]) == .text("hé"))
    }

    @Test func invalidUTF8WithControlBytesIsBinary() {
        // A control byte no text has, and one Windows-1252 leaves undefined.
        #expect(Classification.of([0x63, 0x61, 0x66, 0xE9, 0x01]) == .binary(why: "binary (not valid UTF-8 text)"))
        #expect(Classification.of([0x63, 0x81]) == .binary(why: "binary (not valid UTF-8 text)"))
        #expect(Classification.of([0xFF, 0xFE, 0x68]) == .binary(why: "binary (not valid UTF-8 text)"), "odd UTF-16 is no text")
    }

    @Test func textStartingWithBMIsNotABitmap() {
        let bytes = Array("BMW service notes\nnext appointment in May\n".utf8)
        #expect(Classification.of(bytes) == .text(String(decoding: bytes, as: UTF8.self)))
    }

    @Test func anHTMLPageWithAnInlineSVGIsText() {
        let html = "<!DOCTYPE html>\n<html><body><svg width=\"1\" height=\"1\"></svg></body></html>\n"
        #expect(Classification.of(Array(html.utf8)) == .text(html))
    }

    @Test func aRIFFFileThatIsNotWebPIsNotAnImage() {
        var wave = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8)
        wave += [UInt8](repeating: 0, count: 16)
        #expect(ImageFormat.detect(wave) == nil)
        #expect(Classification.of(wave) == .binary(why: "binary"))
    }

    @Test func truncatedMagicIsNotAnImage() {
        #expect(ImageFormat.detect(Array(Samples.png.prefix(5))) == nil)
        #expect(ImageFormat.detect(Array(Samples.webp.prefix(12))) == nil)
    }

    @Test func mediaTypeForUploadsPrefersTheBytes() {
        #expect(MediaType.of(name: "screenshot.txt", head: Samples.png) == "image/png")
        #expect(MediaType.of(name: "report.pdf", head: Array("%PDF-1.7".utf8)) == "application/pdf")
        #expect(MediaType.of(name: "main.swift", head: Array("import Foundation\n".utf8)) == MediaType.text)
        #expect(MediaType.of(name: "NOTES", head: Array("plain words\n".utf8)) == MediaType.text)
        #expect(MediaType.of(name: "blob", head: [0, 1, 2, 3]) == MediaType.unknown)
        // A head cut inside "é" (0xC3 0xA9) is still text.
        #expect(MediaType.of(name: "cut", head: Array("caf".utf8) + [0xC3]) == MediaType.text)
    }

    @Test func fenceLanguageComesFromTheName() {
        #expect(TextLanguage.forFile(named: "Main.SWIFT") == "swift")
        #expect(TextLanguage.forFile(named: "Dockerfile") == "dockerfile")
        #expect(TextLanguage.forFile(named: "config.yml") == "yaml")
        #expect(TextLanguage.forFile(named: "unknown.zzz") == "")
        #expect(TextLanguage.forFile(named: ".hidden") == "")
    }
}
