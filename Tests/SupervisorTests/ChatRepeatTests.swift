import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import Supervisor

/// The chat layer's guards against acting twice or swallowing a message: handled message ids
/// (a restarted messenger hands over again what it had in flight) and which plain messages
/// answer an open question.
@Suite struct ChatRepeatTests {
    static let logger = Logger(label: "test")

    @Test func aHandledMessageIsKnownAfterARestart() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/chat-messages.json"
        var handled = HandledMessages(path: path, logger: Self.logger)
        let first = handled.insert("discord:1")
        let repeated = handled.insert("discord:1")
        let other = handled.insert("discord:2")
        #expect(first && other)
        #expect(!repeated, "a repeat is refused")
        handled.remove("discord:2")
        #expect(!handled.contains("discord:2"), "a failed handling is forgotten, so its retry is acted on")
        try handled.save()
        let reloaded = HandledMessages(path: path, logger: Self.logger)
        #expect(reloaded.contains("discord:1"))
        #expect(!reloaded.contains("discord:2"))
        #expect(!reloaded.contains("slack:1"), "ids are per messenger")
    }

    @Test func onlyTheNewestIdsAreKept() throws {
        let folder = try ScratchFolder()
        var handled = HandledMessages(path: folder.path + "/h.json", logger: Self.logger)
        for n in 0..<(HandledMessages.limit + 10) { _ = handled.insert("m:\(n)") }
        #expect(!handled.contains("m:0") && !handled.contains("m:9"))
        #expect(handled.contains("m:10") && handled.contains("m:\(HandledMessages.limit + 9)"))
        try handled.save()
        let reloaded = HandledMessages(path: folder.path + "/h.json", logger: Self.logger)
        #expect(reloaded.contains("m:10") && !reloaded.contains("m:9"))
    }

    @Test func anUnreadableRecordStartsEmpty() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("broken.json", "{not json", mode: 0o600)
        var handled = HandledMessages(path: path, logger: Self.logger)
        let inserted = handled.insert("discord:1")
        #expect(inserted)
    }

    @Test func plainMessagesAnswerOnlyWhatTheyCanAnswer() {
        var q = PendingQuestion(
            id: "q", sessionID: "s", method: "select", title: "Pick", message: nil,
            options: ["red", "green", "blue"], placeholder: nil, prefill: nil, askedAt: Date(), expiresAt: nil)
        #expect(q.takesPlainReply("2") && q.takesPlainReply("Green"))
        #expect(!q.takesPlainReply("what do the colours mean?"), "not an option: a prompt, not a dropped answer")
        #expect(!q.takesPlainReply("4"))
        q.method = "confirm"
        #expect(q.takesPlainReply("yes") && q.takesPlainReply("N"))
        #expect(!q.takesPlainReply("yes, but first tell me why"))
        q.method = "input"
        #expect(q.takesPlainReply("feature/login"))
        q.method = "editor"
        #expect(q.takesPlainReply("a whole\nmessage"))
    }

    /// An approval asked in one chat (the running prompt's) is not answered by a plain message in
    /// another bound chat, which never saw it: "2" there is a prompt, not "Approve for session".
    @Test func anApprovalAskedInOneChatTakesNoPlainReplyElsewhere() {
        var gate = PendingQuestion(
            id: "g", sessionID: "s", method: "select", title: "🔒 Approve bash?", message: "rm -rf build",
            options: ["Approve once", "Approve for session", "Deny"], placeholder: nil, prefill: nil, askedAt: Date(), expiresAt: nil)
        gate.onlyChat = "discord:A"
        #expect(gate.takesPlainReply("2", in: "discord:A"))
        #expect(!gate.takesPlainReply("2", in: "discord:B") && !gate.takesPlainReply("Approve once", in: "discord:B"))
        gate.onlyChat = nil
        #expect(gate.takesPlainReply("2", in: "discord:B"), "asked in every chat: any of them answers")
    }
}
