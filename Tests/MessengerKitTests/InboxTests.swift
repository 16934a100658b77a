import Foundation
import Logging
import MessengerKit
import PiRelaySDK
import Synchronization
import Testing

/// The kit's inbox over a supervisor that answers as a test says, with a messenger side that
/// records what it was asked to show. A second `Inbox` on the same folder is the plugin restarted.
@Suite struct InboxTests {
    struct Note: InboxMessage {
        var id: String
        var lane: String
        var text: String
        var group: String? = nil
        static var remembered: Int { 64 }

        func joined(with later: [Note]) -> Note {
            var whole = self
            whole.text = ([text] + later.map(\.text)).joined(separator: "+")
            return whole
        }
    }

    /// The supervisor: each `chat.message` answered by `answer`, each one recorded in order.
    final class Supervisor: ChatMessageReceiver {
        let answer: @Sendable (ChatMessageParams) throws -> ChatMessageResult
        let asked = Mutex<[String]>([])
        let pairReply: Reply

        init(pairReply: Reply = Reply(text: "paired"), answer: @escaping @Sendable (ChatMessageParams) throws -> ChatMessageResult) {
            self.answer = answer
            self.pairReply = pairReply
        }

        func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult {
            asked.withLock { $0.append(params.text) }
            return try answer(params)
        }

        func pair(_ chat: Chat, code: String) async -> Reply { pairReply }
    }

    /// The messenger's side: what it was asked to show, in order.
    final class Shown: InboxAdapter {
        let lines = Mutex<[String]>([])

        func params(for message: Note) async -> ChatMessageParams? {
            guard message.text != "drop" else { return nil }
            return ChatMessageParams(
                chat: Chat(messenger: "test", channel: message.lane, user: "u1", dm: true), messageID: message.id, text: message.text)
        }

        func failed(_ message: Note, reason: String) async { lines.withLock { $0.append("\(message.id) failed: \(reason)") } }

        func answered(_ message: Note, _ result: ChatMessageResult) async {
            lines.withLock { $0.append("\(message.id) \(result.status.rawValue)" + (result.reaction.map { " " + $0 } ?? "")) }
        }
    }

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-" + UUID().uuidString).path
    func removeFolder() { try? FileManager.default.removeItem(atPath: folder) }

    func inbox(_ supervisor: Supervisor, _ shown: Shown, cursor: Bool = false, groupQuiet: Duration = .seconds(1)) -> Inbox<Shown> {
        Inbox(
            adapter: shown, receiver: supervisor, store: StateStore(directory: folder), empty: InboxRecord(cursor: cursor ? 0 : nil),
            groupQuiet: groupQuiet, logger: Logger(label: "test"))
    }

    /// Holds `lane` until the continuation finishes: what is taken meanwhile waits behind it.
    func hold<Adapter: InboxAdapter>(_ inbox: Inbox<Adapter>, lane: String) async -> AsyncStream<Void>.Continuation {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        await inbox.enqueue(lane) { for await _ in gate {} }
        return open
    }

    /// An album's parts reach the supervisor as one message once the group has been quiet; what
    /// the user wrote after it comes after it, another chat's message does not wait for it, and
    /// nothing is left.
    @Test func aGroupsPartsReachTheSupervisorAsOneOnceItIsQuiet() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let shown = Shown()
        let inbox = inbox(supervisor, shown, groupQuiet: .seconds(1))
        // The lane is held while the parts come, so a loaded machine cannot split them.
        let held = await hold(inbox, lane: "c1")
        await inbox.take(Note(id: "a", lane: "c1", text: "look", group: "g1"))
        await inbox.take(Note(id: "b", lane: "c1", text: "", group: "g1"))
        await inbox.take(Note(id: "x", lane: "c2", text: "elsewhere"))
        await inbox.take(Note(id: "c", lane: "c1", text: "too", group: "g1"))
        await inbox.take(Note(id: "d", lane: "c1", text: "after"))
        held.finish()
        try await until { shown.lines.withLock { $0.count } == 3 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(shown.lines.withLock { $0 } == ["x prompted", "a prompted", "d prompted"])
        #expect(supervisor.asked.withLock { $0 } == ["elsewhere", "look++too", "after"])
        // Shown before it leaves the journal: wait for that, not a fixed time.
        for _ in 0..<500 where await !inbox.pending.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await inbox.pending.isEmpty)
    }

    /// The supervisor turned the group's first part away for now: every part stays journaled,
    /// and a restarted plugin hands the group over whole, once.
    @Test func aGroupTheSupervisorTurnedAwayGoesWholeAfterARestart() async throws {
        defer { removeFolder() }
        let gone = Supervisor { _ in throw RemoteError(code: .unavailable, message: "closed") }
        let first = inbox(gone, Shown(), groupQuiet: .milliseconds(500))
        let held = await hold(first, lane: "c1")
        for (id, text) in [("a", "one"), ("b", "two"), ("c", "")] { await first.take(Note(id: id, lane: "c1", text: text, group: "g1")) }
        held.finish()
        #expect(await first.save())
        try await until { gone.asked.withLock { $0.count } == 1 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await first.pending.map(\.id) == ["a", "b", "c"])
        #expect(gone.asked.withLock { $0 } == ["one+two+"])

        let back = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let shown = Shown()
        let second = inbox(back, shown, groupQuiet: .milliseconds(100))
        await second.resumePending()
        try await until { shown.lines.withLock { $0 } == ["a prompted"] }
        try await Task.sleep(for: .milliseconds(100))
        #expect(back.asked.withLock { $0 } == ["one+two+"])
        for _ in 0..<500 where await !second.pending.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await second.pending.isEmpty)
        #expect(await second.save())
        let third = Shown()
        await inbox(back, third).resumePending()
        try await Task.sleep(for: .milliseconds(100))
        #expect(third.lines.withLock { $0 }.isEmpty)
    }

    func until(_ condition: () -> Bool) async throws {
        for _ in 0..<2000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }

    /// Saved beside the caller: once `journalWritten` returns, the journal on disk holds every
    /// message taken before it was asked, as the plugin restarted (a second inbox) shows.
    @Test func aJournalSavedBesideHoldsWhatWasTakenOnceItSaysSo() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let first = inbox(supervisor, Shown())
        for index in 0..<50 {
            await first.take(Note(id: "m\(index)", lane: "c\(index % 4)", text: "t\(index)"))
            await first.saveBeside()
        }
        await first.journalWritten()
        let restarted = inbox(supervisor, Shown())
        for index in 0..<50 {
            #expect(await restarted.seen("m\(index)"), "m\(index) is in the journal on disk")
        }
    }

    @Test func oneLanesMessagesReachTheSupervisorInOrderAndADuplicateNever() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let shown = Shown()
        let inbox = inbox(supervisor, shown)
        for index in 0..<20 { await inbox.take(Note(id: "m\(index)", lane: "c1", text: "t\(index)")) }
        #expect(await inbox.take(Note(id: "m3", lane: "c1", text: "again")) == false)
        try await until { shown.lines.withLock { $0.count } == 20 }
        #expect(supervisor.asked.withLock { $0 } == (0..<20).map { "t\($0)" })
        #expect(await inbox.relayed == 20)
        #expect(await inbox.duplicates == 1)
    }

    @Test func aMessageTheSupervisorDidNotTakeIsHandedOverAgainAfterARestart() async throws {
        defer { removeFolder() }
        let gone = Supervisor { _ in throw RemoteError(code: .unavailable, message: "closed") }
        let first = inbox(gone, Shown())
        await first.take(Note(id: "m1", lane: "c1", text: "hello"))
        #expect(await first.save())
        try await until { gone.asked.withLock { $0.count } == 1 }

        let back = Supervisor { _ in ChatMessageResult(status: .queued) }
        let shown = Shown()
        let second = inbox(back, shown)
        await second.resumePending()
        try await until { shown.lines.withLock { $0 } == ["m1 queued"] }
        // Handed over: a third start has nothing left, and still knows the message.
        let third = inbox(back, Shown())
        await third.resumePending()
        #expect(await third.take(Note(id: "m1", lane: "c1", text: "hello")) == false)
        #expect(back.asked.withLock { $0 } == ["hello"])
    }

    /// The plugin killed after pi-relayd answered but before the reply was shown: the restarted
    /// plugin shows the kept reply, alone (no ⏳ for a prompt whose run may be over), and does
    /// not ask again (pi-relayd would answer `ignored`).
    @Test func anAnswerNotYetShownIsShownAfterARestartWithoutAskingAgain() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in ChatMessageResult(status: .queued, reply: Reply(text: "Queued"), reaction: "⏳") }
        try await killedWhileShowing(Note(id: "m1", lane: "c1", text: "/sessions"), supervisor)

        let shown = Shown()
        let second = inbox(supervisor, shown)
        await second.resumePending()
        try await until { shown.lines.withLock { $0 } == ["m1 ignored"] }
        #expect(supervisor.asked.withLock { $0 } == ["/sessions"], "asked once")
        // Shown: a third start has nothing left to show.
        let third = Shown()
        await inbox(supervisor, third).resumePending()
        try await Task.sleep(for: .milliseconds(100))
        #expect(third.lines.withLock { $0 }.isEmpty)
    }

    /// The plugin killed after pi-relayd took a group's first two parts and before the journal
    /// said so, with a third part journaled meanwhile: after the restart the same two go again
    /// under the first's id (pi-relayd ignores them, as it does a repeat), and the third goes
    /// on its own rather than inside the ignored one.
    @Test func aPartThatCameAfterItsGroupWentIsNotLostInARestart() async throws {
        defer { removeFolder() }
        let handled = Handled()
        let supervisor = Supervisor { params in
            ChatMessageResult(status: handled.ids.withLock { $0.insert(params.messageID ?? "").inserted } ? .prompted : .ignored)
        }
        let stuck = Stuck()
        let first = Inbox(
            adapter: stuck, receiver: supervisor, store: StateStore(directory: folder), empty: InboxRecord(), groupQuiet: .milliseconds(100),
            logger: Logger(label: "test"))
        let held = await hold(first, lane: "c1")
        await first.take(Note(id: "a", lane: "c1", text: "one", group: "g1"))
        await first.take(Note(id: "b", lane: "c1", text: "two", group: "g1"))
        held.finish()
        try await until { stuck.reached.withLock { $0 } }
        await first.take(Note(id: "c", lane: "c1", text: "three", group: "g1"))
        #expect(await first.save())

        let shown = Shown()
        let second = inbox(supervisor, shown, groupQuiet: .milliseconds(100))
        await second.resumePending()
        try await until { shown.lines.withLock { $0 } == ["a ignored", "c prompted"] }
        #expect(supervisor.asked.withLock { $0 } == ["one+two", "one", "three"])
    }

    final class Handled: Sendable {
        let ids = Mutex<Set<String>>([])
    }

    /// `note` taken by an inbox whose messenger side is killed while it shows the answer.
    func killedWhileShowing(_ note: Note, _ supervisor: Supervisor) async throws {
        let stuck = Stuck()
        let first = Inbox(
            adapter: stuck, receiver: supervisor, store: StateStore(directory: folder), empty: InboxRecord(), logger: Logger(label: "test"))
        await first.take(note)
        #expect(await first.save())
        try await until { stuck.reached.withLock { $0 } }
    }

    /// A messenger side killed while it shows an answer: `answered` never returns.
    final class Stuck: InboxAdapter {
        let reached = Mutex(false)

        func params(for message: Note) async -> ChatMessageParams? {
            ChatMessageParams(chat: Chat(messenger: "test", channel: message.lane, user: "u1", dm: true), messageID: message.id, text: message.text)
        }

        func failed(_ message: Note, reason: String) async {
            reached.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(3600))
        }

        func answered(_ message: Note, _ result: ChatMessageResult) async {
            reached.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    /// The service refused the plugin's token while it showed a reply or a refusal (the adapter
    /// logged the error and went on): both stay in the journal, and the next start shows them,
    /// without asking pi-relayd again.
    @Test func whatTheTokenRefusalKeptFromTheChatIsShownAtTheNextStart() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { params in
            if params.text == "hello" { throw RemoteError(code: .notAuthorized, message: "no") }
            return ChatMessageResult(status: .command, reply: Reply(text: "No sessions"))
        }
        let first = Shown()
        let refused = Inbox(
            adapter: first, receiver: supervisor, store: StateStore(directory: folder), empty: InboxRecord(cursor: nil),
            credentialsRefused: { true }, logger: Logger(label: "test"))
        await refused.take(Note(id: "m1", lane: "c1", text: "/sessions"))
        await refused.take(Note(id: "m2", lane: "c1", text: "hello"))
        try await until { first.lines.withLock { $0 } == ["m1 command", "m2 failed: Not authorized."] }
        for _ in 0..<100 where await refused.pending.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await refused.pending.map(\.id) == ["m1", "m2"])

        let shown = Shown()
        await inbox(supervisor, shown).resumePending()
        try await until { shown.lines.withLock { $0 } == ["m1 ignored", "m2 ignored"] }
        #expect(supervisor.asked.withLock { $0 } == ["/sessions", "hello"], "asked once each")
        let third = Shown()
        await inbox(supervisor, third).resumePending()
        try await Task.sleep(for: .milliseconds(100))
        #expect(third.lines.withLock { $0 }.isEmpty)
    }

    /// A refusal is told before the message leaves the journal: a messenger side killed while
    /// the refusal waits to be posted tells it after its restart, rather than never.
    @Test func aRefusalNotYetToldIsToldAfterARestart() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in throw RemoteError(code: .notAuthorized, message: "no") }
        try await killedWhileShowing(Note(id: "m1", lane: "c1", text: "hello"), supervisor)

        let shown = Shown()
        await inbox(supervisor, shown).resumePending()
        try await until { shown.lines.withLock { $0 } == ["m1 failed: Not authorized."] }
    }

    @Test func aRefusalIsShownOnceAndTheMessageLeavesTheJournal() async throws {
        defer { removeFolder() }
        let supervisor = Supervisor { _ in throw RemoteError(code: .notAuthorized, message: "no") }
        let shown = Shown()
        let inbox = inbox(supervisor, shown)
        await inbox.take(Note(id: "m1", lane: "c1", text: "hello"))
        await inbox.take(Note(id: "m2", lane: "c1", text: "drop"))
        try await until { shown.lines.withLock { $0 } == ["m1 failed: Not authorized."] }
        let restarted = Shown()
        let again = self.inbox(Supervisor { _ in ChatMessageResult(status: .prompted) }, restarted)
        await again.resumePending()
        try await Task.sleep(for: .milliseconds(100))
        #expect(restarted.lines.withLock { $0 }.isEmpty)
    }

    @Test func theSavedCursorOnlyMovesWhenTheJournalIsSaved() async throws {
        defer { removeFolder() }
        let inbox = inbox(Supervisor { _ in ChatMessageResult(status: .prompted) }, Shown(), cursor: true)
        await inbox.advance(cursor: 7)
        #expect(await inbox.cursor == 7)
        #expect(await inbox.savedCursor == 0)
        #expect(await inbox.save())
        #expect(await inbox.savedCursor == 7)
        await inbox.advance(cursor: 5)
        #expect(await inbox.cursor == 7)
        let restarted = self.inbox(Supervisor { _ in ChatMessageResult(status: .prompted) }, Shown(), cursor: true)
        #expect(await restarted.savedCursor == 7)
    }

    @Test func refusalsAndPairingAnswersOutsidePrivateChatsAreThrottled() async throws {
        defer { removeFolder() }
        let inbox = inbox(Supervisor(pairReply: Reply(text: "only in a DM")) { _ in ChatMessageResult(status: .prompted) }, Shown())
        #expect(await inbox.refuse("u9", in: "g1"))
        #expect(await inbox.refuse("u9", in: "g1") == false)
        #expect(await inbox.refuse("u9", in: "g1", always: true))
        #expect(await inbox.refuse("u9", in: "g2"))
        #expect(await inbox.refused == 4)
        let answers = Mutex<[String]>([])
        let chat = Chat(messenger: "test", channel: "g3", user: "u9", dm: false)
        for _ in 0..<3 {
            await inbox.pair(chat, code: "ABC", lane: "g3", throttledIn: "g3") { reply in answers.withLock { $0.append(reply.text) } }
        }
        await inbox.pair(chat, code: "ABC", lane: "d1", throttledIn: nil) { reply in answers.withLock { $0.append("dm: " + reply.text) } }
        try await until { answers.withLock { $0.count } == 2 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(answers.withLock { $0 }.sorted() == ["dm: only in a DM", "only in a DM"])
    }

    /// A journal that cannot be saved (the disk is full; here the state folder is a file): the
    /// saved cursor stays behind, so the poller does not confirm what the journal lacks, and the
    /// message taken in is still handed over.
    @Test func aJournalThatCannotBeSavedKeepsTheCursorBehind() async throws {
        defer { removeFolder() }
        #expect(FileManager.default.createFile(atPath: folder, contents: Data("not a folder".utf8)))
        let supervisor = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let shown = Shown()
        let inbox = inbox(supervisor, shown, cursor: true)
        await inbox.take(Note(id: "m1", lane: "c1", text: "hello"))
        await inbox.advance(cursor: 9)
        #expect(await inbox.save() == false)
        #expect(await inbox.savedCursor == 0)
        #expect(await inbox.cursor == 9)
        try await until { shown.lines.withLock { $0 } == ["m1 prompted"] }
    }

    /// What waits for the journal saved beside (the Discord gateway's resume point) waits while
    /// the disk refuses it: a resume point saved past a message the journal lost loses it.
    @Test func whatWaitsForTheJournalWaitsWhileTheDiskRefusesIt() async throws {
        defer { removeFolder() }
        #expect(FileManager.default.createFile(atPath: folder, contents: Data("not a folder".utf8)))
        let supervisor = Supervisor { _ in ChatMessageResult(status: .prompted) }
        let first = inbox(supervisor, Shown())
        await first.take(Note(id: "m1", lane: "c1", text: "hello"))
        await first.saveBeside()
        let written = Mutex(false)
        let waiter = Task {
            await first.journalWritten()
            written.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!written.withLock { $0 }, "not while the journal is not on disk")
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        await waiter.value
        #expect(await inbox(supervisor, Shown()).seen("m1"), "m1 is in the journal on disk")
    }
}
