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
}
