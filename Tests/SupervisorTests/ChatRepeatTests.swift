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

    /// A message still in hand when the daemon stopped (waiting for pi) is known as cut off by
    /// the next daemon, once; one done is not. Kept through the journal's rewrite too.
    @Test func aMessageInHandWhenTheDaemonStoppedIsCutOff() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/chat-messages.json"
        var handled = HandledMessages(path: path, logger: Self.logger)
        _ = handled.insert("discord:done")
        _ = handled.insert("discord:waiting")
        handled.done("discord:done")
        let ownCutOff = handled.wasCutOff("discord:waiting")
        #expect(!ownCutOff, "this daemon is still handling it")
        try handled.save()
        var appended = HandledMessages(path: path, logger: Self.logger)
        let (done, waiting, again) = (
            appended.wasCutOff("discord:done"), appended.wasCutOff("discord:waiting"), appended.wasCutOff("discord:waiting")
        )
        #expect(!done && waiting)
        #expect(!again, "said once")

        // A rewrite (a torn last record forces one) keeps what is in hand.
        var torn = HandledMessages(path: folder.path + "/torn.json", logger: Self.logger)
        _ = torn.insert("slack:waiting")
        try torn.save()
        let fd = open(folder.path + "/torn.json", O_WRONLY | O_APPEND)
        _ = "{\"add\":".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        var rewritten = HandledMessages(path: folder.path + "/torn.json", logger: Self.logger)
        _ = rewritten.insert("slack:other")
        try rewritten.save()
        #expect(String(decoding: FileManager.default.contents(atPath: folder.path + "/torn.json") ?? Data(), as: UTF8.self).contains("inHand"))
        var reread = HandledMessages(path: folder.path + "/torn.json", logger: Self.logger)
        let (first, second) = (reread.wasCutOff("slack:waiting"), reread.wasCutOff("slack:other"))
        #expect(first && second)
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
