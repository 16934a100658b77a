import Foundation
import MessengerKit
import PiRelaySDK
import Testing

@Suite struct InboundFilesTests {
    @Test func filesThatCameThroughAreAttachedAndTheOthersNamedInThePrompt() async {
        let files = await InboundFiles.fetch(["a.png", "big.mp4", "notes.md"]) { name in
            name == "big.mp4"
                ? .skipped(note: "[attachment \(name): not included: too big]")
                : .attached(AttachmentRef(path: "/spool/" + name, filename: name, size: 1, contentType: nil))
        }
        #expect(files.attachments.map(\.filename) == ["a.png", "notes.md"])
        #expect(files.prompt("look") == "look\n\n[attachment big.mp4: not included: too big]")
        #expect(files.prompt("") == "[attachment big.mp4: not included: too big]", "a file alone: the note is the prompt")
    }

    @Test func withEverythingAttachedThePromptIsTheText() async {
        let files = await InboundFiles.fetch([1]) { _ in .attached(AttachmentRef(path: "/spool/x", filename: "x", size: nil, contentType: nil)) }
        #expect(files.prompt("hello") == "hello")
        let none = await InboundFiles.fetch([Int]()) { _ in .skipped(note: "never") }
        #expect(none.attachments.isEmpty && none.prompt("hi") == "hi")
    }

    @Test func aFileOverTwentyMegabytesIsLeftOutBeforeItIsFetched() {
        let limit = InboundFiles.maxDownloadBytes
        #expect(limit == 20 << 20)
        #expect(InboundFiles.oversized("a.bin", size: limit, why: { "\($0) MB" }) == nil, "the limit itself is allowed")
        #expect(InboundFiles.oversized("a.bin", size: nil, why: { "\($0) MB" }) == nil, "an unknown size is fetched, capped by the download")
        guard case .skipped(let note) = InboundFiles.oversized("a.bin", size: 30 << 20, why: { "it is \($0) MB" }) else {
            Issue.record("a 30 MB file was not left out")
            return
        }
        #expect(note == "[attachment a.bin: not included: it is 30 MB]")
    }

    @Test func aSpooledFileCannotLeaveTheSpoolFolder() {
        let path = InboundFiles.spoolPath("/spool", messenger: "tg", message: "-100:42", file: "../../etc/passwd")
        #expect(path == "/spool/tg--100-42-.._.._etc_passwd")
        #expect(!path.dropFirst("/spool/".count).contains("/"))
    }

    /// 80 Japanese characters are 240 bytes: with the prefix, past the 255 bytes a file system
    /// takes for a name, and the download failed. The spool's name is cut, its extension kept.
    @Test func aLongNameFitsTheFileSystem() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/inbound-files-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = InboundFiles.spoolPath(
            folder, messenger: "telegram", message: "-1001234567890:4242", file: String(repeating: "あ", count: 80) + ".pdf")
        let name = String(path.dropFirst(folder.count + 1))
        #expect(name.utf8.count <= 255 && name.hasSuffix("あ.pdf"), "\(name)")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        #expect(InboundFiles.spoolPath("/s", messenger: "m", message: "1", file: "short.txt") == "/s/m-1-short.txt")
    }
}
