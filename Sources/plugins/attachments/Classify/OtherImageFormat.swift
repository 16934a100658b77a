/// Image formats that are recognised (so the user hears what was skipped) but not sent, because
/// the vision APIs behind pi accept only PNG, JPEG, GIF and WebP.
enum OtherImageFormat: String, Sendable {
    case bmp = "BMP"
    case tiff = "TIFF"
    case heic = "HEIC/HEIF"
    case avif = "AVIF"
    case ico = "ICO"
    case jpegXL = "JPEG XL"
    case jpeg2000 = "JPEG 2000"
    case psd = "Photoshop (PSD)"
    case svg = "SVG"

    /// Binary formats only; SVG is text and is recognised by `detectSVG`.
    static func detect(_ bytes: [UInt8]) -> OtherImageFormat? {
        if bytes.count >= 18, bytes.starts(with: [0x42, 0x4D]), bytes[6..<10].allSatisfy({ $0 == 0 }),
            [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24)
        {
            // "BM" alone would match ordinary text; the zero reserved words and a known DIB header
            // size make a false match unlikely.
            return .bmp
        }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"].contains(brand) { return .heic }
            if ["avif", "avis"].contains(brand) { return .avif }
        }
        if bytes.starts(with: [0x00, 0x00, 0x01, 0x00]) && bytes.count >= 6 && bytes[4] != 0 && bytes[5] == 0 { return .ico }
        if bytes.starts(with: [0xFF, 0x0A]) || bytes.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if bytes.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || bytes.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return .jpeg2000
        }
        if bytes.starts(with: Array("8BPS".utf8)) { return .psd }
        return nil
    }

    /// True when the document's root element is `<svg>`: leading whitespace, an XML declaration,
    /// comments and a DOCTYPE are skipped, so an HTML page that merely contains an `<svg>` is text.
    static func detectSVG(_ text: String) -> Bool {
        var rest = Substring(text.prefix(8192))
        while true {
            rest = rest.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
            if rest.hasPrefix("<?") || rest.hasPrefix("<!--") || rest.lowercased().hasPrefix("<!doctype") {
                let closer = rest.hasPrefix("<!--") ? "-->" : ">"
                guard let end = rest.firstRange(of: closer) else { return false }
                rest = rest[end.upperBound...]
                continue
            }
            guard rest.hasPrefix("<") else { return false }
            let name = rest.dropFirst().prefix(while: { !$0.isWhitespace && $0 != ">" && $0 != "/" })
            let local = name.split(separator: ":").last.map { $0.lowercased() } ?? ""
            return local == "svg"
        }
    }
}
