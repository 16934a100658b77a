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
}
