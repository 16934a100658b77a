import Foundation
import Testing

@testable import Supervisor

/// Issue 17 point 3: the session commands as typed in a chat, and the markers sessions take.
@Suite struct ChatSessionCommandTests {
    @Test func aliasAndToAreParsed() throws {
        #expect(ChatCommand.parse("/alias phone") == .alias("phone"))
        #expect(ChatCommand.parse("/alias clear") == .alias(nil))
        #expect(ChatCommand.parse("/alias") == nil)
        #expect(ChatCommand.parse("/to 2 run the tests") == .to(session: "2", text: "run the tests"))
        #expect(ChatCommand.parse("/to \"docs team\" run tests") == .to(session: "docs team", text: "run tests"))
        #expect(ChatCommand.parse("/to \"docs team\"") == nil, "a label and no text")
        // A phone's keyboard writes curly quotes; a folder with spaces is quoted; a doubled space
        // names no session " name".
        #expect(ChatCommand.parse("/to “docs team” run tests") == .to(session: "docs team", text: "run tests"))
        #expect(ChatCommand.parse("/file „my notes.md“ for you") == .file("my notes.md", caption: "for you"))
        #expect(ChatCommand.parse("/new \"~/My Projects/api\" api") == .new(cwd: "~/My Projects/api", name: "api"))
        #expect(ChatCommand.parse("/new ~/api  api") == .new(cwd: "~/api", name: "api"))
        #expect(try ChatCommand.from(name: "alias", args: ["name": "Clear"]) == .alias(nil))
        #expect(ChatCommand.parse("/use 2") == .use("2") && ChatCommand.parse("/forget 3") == .forget("3"))
    }

    @Test func eachSessionTakesAFreeMarker() {
        #expect(SessionMarker.next(taken: []) == "🔵")
        #expect(SessionMarker.next(taken: ["🔵", "🟠"]) == "🟢", "the first one free, not the next in line")
        let all = SessionMarker.palette + ["🔵"]
        #expect(SessionMarker.next(taken: all) != "🔵", "once all are taken, the least used")
    }

    @Test func lastActivityReadsShort() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ChatDesk.ago(now, now: now) == "just now")
        #expect(ChatDesk.ago(now.addingTimeInterval(-42), now: now) == "42s ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-300), now: now) == "5m ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-3 * 3600), now: now) == "3h ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-2 * 86_400), now: now) == "2d ago")
    }
}

/// Outbound media's words: a path and its caption, an image command, and the pictures an
/// answer names.
@Suite struct OutboundMediaWordsTests {
    @Test func fileTakesACaptionAndSendImageAPath() throws {
        #expect(ChatCommand.parse("/send-file report.txt for the review") == .file("report.txt", caption: "for the review"))
        #expect(ChatCommand.parse("/file \"my notes.md\" read this") == .file("my notes.md", caption: "read this"))
        #expect(ChatCommand.parse("/file notes.md") == .file("notes.md", caption: nil))
        #expect(ChatCommand.parse("/send-image out/a.png") == .sendImage("out/a.png"))
        #expect(ChatCommand.parse("/send_image out/a.png") == .sendImage("out/a.png"))
        #expect(ChatCommand.parse("/send-image") == nil && ChatCommand.parse("/file") == nil)
        #expect(try ChatCommand.from(name: "file", args: ["path": "a.txt", "caption": "hi"]) == .file("a.txt", caption: "hi"))
    }

    @Test func picturesAnAnswerNames() {
        let text = """
            Saved the plot to `out/result.png` and ![chart](plots/b.WEBP).
            See https://example.com/x.png and /tmp/abs.jpg, out/result.png again, notes.txt, v1.2.png.
            """
        #expect(NamedImages.paths(in: text) == ["out/result.png", "plots/b.WEBP", "/tmp/abs.jpg", "v1.2.png"])
        #expect(NamedImages.isImage("a.jpeg") && !NamedImages.isImage("a.png/x") && !NamedImages.isImage("png"))
        #expect(NamedImages.paths(in: (1...20).map { "p\($0).png" }.joined(separator: " ")).count == NamedImages.most)
    }
}
