import Logging
import PiRelaySDK

/// A messenger's inbound side after it decided a message is for the relay: the journal
/// (`InboxRecord`, saved before the service is told the message arrived), dedupe, the hand-over
/// to the supervisor in the conversation's lane (`Handover`), resuming hand-overs a previous run
/// left unfinished, pairing claims, and how often refused users hear about it. The messenger
/// keeps what is its own: its events, its listen policy, its files and its answers (`Adapter`).
public actor Inbox<Adapter: InboxAdapter> {
    public typealias Message = Adapter.Message

    private let adapter: Adapter
    private let receiver: any ChatMessageReceiver
    private let store: StateStore
    private let logger: Logger
    private let unsavedNote: String
    /// How long a group's hand-over waits after its newest part came (`InboxMessage.group`).
    private let groupQuiet: Duration
    /// Whether the service refused the plugin's credentials in this run.
    private let credentialsRefused: @Sendable () -> Bool
    /// When each group's newest part was taken in.
    private var groupTaken: [String: ContinuousClock.Instant] = [:]
    private let lanes = Lanes()
    private var journal: InboxRecord<Message>
    /// Pending messages whose hand-over is queued or running: `resumePending` leaves them be.
    private var handing: Set<String> = []
    /// "Not authorized." and pairing answers outside private chats: once per 10 minutes per user
    /// and chat, so nobody off the allowlist can make the bot spam a group.
    private var throttle = RefusalThrottle()
    /// Saves asked for beside the caller (`saveBeside`), and how many of them are written.
    private var requestedSaves = 0
    private var writtenSaves = 0
    private var writingBeside = false
    /// Every save's number, in the order their journals were copied.
    private var savesStarted = 0
    /// The journal could not be saved, and that was logged: once an outage, not once a try.
    private var unsavedLogged = false
    private var waitingForSaves: [(through: Int, continuation: CheckedContinuation<Void, Never>)] = []
    public private(set) var relayed = 0
    public private(set) var refused = 0
    public private(set) var duplicates = 0

    /// `empty`: the journal to start from when none was saved (with the transport's mark).
    /// `unsavedNote`: what a journal that cannot be saved means for this messenger, for the log.
    /// `groupQuiet`: how long after a group's newest part its hand-over starts (the platform sends
    /// an album's parts within a moment of each other).
    /// `credentialsRefused`: true once the service refused the plugin's token, which the plugin
    /// then ends for. A reply shown meanwhile may not have reached the chat (the adapter logs
    /// its error and goes on), so it stays in the journal and is shown at the next start: twice
    /// rather than never.
    public init(
        adapter: Adapter, receiver: any ChatMessageReceiver, store: StateStore, empty: InboxRecord<Message>, unsavedNote: String = "",
        groupQuiet: Duration = .seconds(1), credentialsRefused: @escaping @Sendable () -> Bool = { false }, logger: Logger
    ) {
        self.adapter = adapter
        self.groupQuiet = groupQuiet
        self.credentialsRefused = credentialsRefused
        self.receiver = receiver
        self.store = store
        self.unsavedNote = unsavedNote
        self.logger = logger
        journal = store.load(InboxRecord<Message>.self, from: InboxRecord<Message>.file) ?? empty
        savedCursor = journal.cursor ?? 0
    }

    /// The highest update taken in, for a transport that confirms by position.
    public var cursor: Int { journal.cursor ?? 0 }

    /// The highest update taken in and saved: a polling transport confirms up to it. With the
    /// disk full it stays behind, so the service keeps the updates the journal could not keep.
    public private(set) var savedCursor: Int

    /// The messages taken in whose hand-over has not finished.
    public var pending: [Message] { journal.pending }

    /// Whether the hand-over of message `id` finished within `limit` (pi-relayd has it, or it is
    /// no longer pending for another reason).
    public func handedOver(_ id: String, within limit: Duration) async -> Bool {
        let start = ContinuousClock.now
        while isPending(id) {
            guard ContinuousClock.now - start < limit else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Whether the journal's last save went to disk: while it did not, a message taken in lives
    /// only in memory until pi-relayd has it, and the service must be left to send it again.
    public var journalSaved: Bool { !unsavedLogged }

    /// Whether the message `id` was taken in and its hand-over has not finished.
    public func isPending(_ id: String) -> Bool { journal.pending.contains { $0.id == id } }

    /// Hands over again what was taken in and kept (a previous run's, or one pi-relayd turned
    /// away for now); not what is on its way already.
    public func resumePending() async {
        let kept = journal.pending.filter { !handing.contains($0.id) }
        guard !kept.isEmpty else { return }
        logger.info("handing over \(kept.count) message(s) kept from before")
        for message in kept {
            if let result = journal.answer(of: message.id) {
                handing.insert(message.id)
                // The reply alone: a reaction or a progress mark (⏳) belonged to a moment that
                // has passed, and pi-relayd may have taken it off meanwhile.
                let reply = ChatMessageResult(status: .ignored, reply: result.reply)
                await lanes.enqueue(message.lane) { [self] in await self.show(reply, for: message) }
            } else {
                // Parts of its group may still be on their way from the service.
                if let group = message.group { groupTaken[group] = .now }
                await queue(message)
            }
        }
    }

    /// Journals `message` and queues its hand-over in its lane. False, counted as a duplicate,
    /// when it was taken in before (the service delivered it again). The caller saves the
    /// journal before it lets the service know the message arrived.
    @discardableResult
    public func take(_ message: Message) async -> Bool {
        guard journal.take(message) else {
            duplicates += 1
            logger.info("message \(message.id) was taken in before (delivered again); skipped")
            return false
        }
        if let group = message.group { groupTaken[group] = .now }
        await queue(message)
        return true
    }

    /// Whether the message `id` was taken in before (and is still remembered), without taking
    /// anything: for work a repeat must not do twice (a page's upload written to the spool).
    public func seen(_ id: String) -> Bool { journal.seen.contains(id) }

    /// False when the transport's event `id` was taken in before.
    public func see(event id: String) -> Bool {
        guard journal.see(event: id) else {
            duplicates += 1
            return false
        }
        return true
    }

    /// Moves the transport's position to `id`; nothing when it is there already.
    public func advance(cursor id: Int) {
        if id > journal.cursor ?? 0 { journal.cursor = id }
    }

    /// The service numbers its updates anew, below the position (Telegram picks a new first
    /// `update_id` at random after a week without updates): the position goes back to just
    /// before `id`, its first update, and is saved so, or every later update would be taken for
    /// one seen before.
    public func renumbered(from id: Int) async {
        journal.cursor = id - 1
        savedCursor = min(savedCursor, id - 1)
        await save()
    }

    /// Saves the journal; false (and logged) when it could not be.
    ///
    /// Not flushed to the disk: a write the kernel has taken survives the plugin's crash, which
    /// is what the journal is for. A flush guarded only a power loss in the milliseconds before
    /// the hand-over, after which pi-relayd's own unflushed record of the message stands in for
    /// it anyway, and it cost ~1.5 ms a message on the reader's path: four chats writing at once
    /// waited for each other's flushes (`make bench`, the messengers tables).
    ///
    /// Written in place (`StateStore.rewrite`), not as a new file renamed over the old one: a
    /// message is saved two or three times on its way, and each rename cost 0.1–0.6 ms of the
    /// kernel's time on ext4 (which starts writing a file back when it replaces another), against
    /// ~10 µs for a write in place. A journal an earlier version wrote whole still reads back.
    @discardableResult
    public func save() async -> Bool {
        let cursor = journal.cursor
        // Numbered as the journal is copied: saves that reach the store out of order (the actor
        // runs a higher priority's first) never leave an older journal over a newer one, whose
        // cursor may already be confirmed to the service.
        savesStarted += 1
        guard await store.rewrite(journal, in: InboxRecord<Message>.file, version: savesStarted) else {
            // Once an outage: a save beside the gateway is tried again every second.
            if !unsavedLogged { logger.error("cannot save the inbox journal (disk full?)\(unsavedNote)") }
            unsavedLogged = true
            return false
        }
        if unsavedLogged { logger.notice("the inbox journal is saved again") }
        unsavedLogged = false
        if let cursor { savedCursor = max(savedCursor, cursor) }
        return true
    }

    /// Saves the journal beside the caller, who goes on at once: for a reader that should take
    /// the next event while this one is written (the Discord gateway). One write at a time, the
    /// newest journal last. What must not get ahead of the journal (the gateway's resume point)
    /// waits for `journalWritten()`.
    public func saveBeside() {
        requestedSaves += 1
        guard !writingBeside else { return }
        writingBeside = true
        // Unstructured on purpose: the caller must not wait for the disk. The loop ends once no
        // save was asked for while it wrote.
        Task { await writeBeside() }
    }

    private func writeBeside() async {
        while writtenSaves < requestedSaves {
            // `save` copies the journal before it first waits: everything asked for so far.
            let through = requestedSaves
            guard await save() else {
                // What waits for the journal (the gateway's resume point) must not get past a
                // message it does not hold: it waits, and the save is tried again.
                try? await Task.sleep(for: Self.saveRetry)
                continue
            }
            writtenSaves = through
            let done = waitingForSaves.filter { $0.through <= through }
            waitingForSaves.removeAll { $0.through <= through }
            for waiter in done { waiter.continuation.resume() }
        }
        writingBeside = false
    }

    /// How long a save beside the caller that the disk refused waits before it is tried again.
    static var saveRetry: Duration { .seconds(1) }

    /// Returns once every save asked for so far with `saveBeside` is written; while the disk
    /// refuses it (logged by `save`), it waits. Saves asked for later do not hold it up.
    public func journalWritten() async {
        let through = requestedSaves
        guard writtenSaves < through else { return }
        await withCheckedContinuation { waitingForSaves.append((through, $0)) }
    }

    /// Runs `work` in `lane`, after what that lane already has.
    public func enqueue(_ lane: String, _ work: @escaping @Sendable () async -> Void) async {
        await lanes.enqueue(lane, work)
    }

    /// A user off the allowlist wrote: counted, and true when they may be told so now (at most
    /// once per 10 minutes per user and `chat`). `always`: an answer the service needs.
    public func refuse(_ user: String, in chat: String, always: Bool = false) -> Bool {
        refused += 1
        return throttle.allows(user, in: chat, always: always)
    }

    /// A pairing claim, the one thing taken from users off the allowlist: the supervisor checks
    /// the code, and `show` posts its answer, in `lane`. `throttledIn`: the chat where answers
    /// are limited as refusals are (outside private chats), nil for none.
    public func pair(
        _ chat: Chat, code: String, lane: String, throttledIn: String?, show: @escaping @Sendable (Reply) async -> Void
    ) async {
        logger.info("pairing claim from user \(chat.user) (\(chat.userName ?? "")) in \(lane)")
        let receiver = receiver
        await lanes.enqueue(lane) { [self] in
            let reply = await receiver.pair(chat, code: code)
            if let throttledIn, !(await self.mayAnswer(chat.user, in: throttledIn)) { return }
            await show(reply)
        }
    }

    private func mayAnswer(_ user: String, in chat: String) -> Bool {
        throttle.allows(user, in: chat)
    }

    private func queue(_ message: Message) async {
        handing.insert(message.id)
        await lanes.enqueue(message.lane) { [self] in await self.relay(message) }
    }

    private func relay(_ message: Message) async {
        defer { handing.remove(message.id) }
        guard let (message, parts) = await gathered(message) else { return }
        guard let params = await adapter.params(for: message) else {
            done(parts)
            return await finished(message.id)
        }
        switch await Handover.chatMessage(params, to: receiver, logger: logger) {
        case .kept: return
        case .failed(let reason):
            // Told first, then forgotten, as an answer is: twice rather than never.
            await adapter.failed(message, reason: reason)
            done(parts)
            if credentialsRefused() {
                // Kept as its answer, which the next start shows.
                journal.answer(message.id, ChatMessageResult(status: .refused, reply: Reply(text: reason)))
                await save()
                return keptUnshown(message)
            }
            await finished(message.id)
        case .answered(let result):
            done(parts)
            relayed += 1
            logger.info("message \(message.id) from \(params.chat.userName ?? params.chat.user): \(result.status.rawValue)")
            // A reply is kept until shown: pi-relayd answers a repeat `ignored`, so one lost to
            // a restart here would never be shown. A plain prompt's answer (or a reaction alone)
            // has nothing to lose, and costs no save.
            if result.reply != nil {
                journal.answer(message.id, result)
                await save()
            }
            await show(result, for: message)
        }
    }

    /// Shows the supervisor's answer to `message`, then lets the journal forget both. A restart
    /// before that shows it again: twice rather than never.
    private func show(_ result: ChatMessageResult, for message: Message) async {
        defer { handing.remove(message.id) }
        await adapter.answered(message, result)
        // A reply is journaled (`relay`): kept for the next start if the token was refused.
        if result.reply != nil, credentialsRefused() { return keptUnshown(message) }
        await finished(message.id)
    }

    private func keptUnshown(_ message: Message) {
        logger.notice("the reply to message \(message.id) is kept for the next start: the service refused the token")
    }

    /// `message` with the later parts of its group joined to it, once the group has been quiet
    /// for `groupQuiet`, and the ids of those parts. Nil when a part before it is still pending
    /// (the supervisor turned that one away for now: the group goes with it later), or when it
    /// was joined to its group's first part already.
    private func gathered(_ message: Message) async -> (Message, [String])? {
        guard let group = message.group else { return (message, []) }
        while let taken = groupTaken[group], case let waited = ContinuousClock.now - taken, waited < groupQuiet {
            do { try await Task.sleep(for: groupQuiet - waited) } catch { break }
        }
        let parts = journal.pending.filter { $0.group == group }
        guard let first = parts.first, first.id == message.id else { return nil }
        groupTaken[group] = nil
        let later: [Message]
        if let kept = journal.joined[first.id] {
            // Handed over before a restart, maybe: the same parts again, under the same id.
            later = parts.filter { kept.contains($0.id) }
        } else {
            later = Array(parts.dropFirst())
            journal.joined[first.id] = later.map(\.id)
            await save()
        }
        if !later.isEmpty { logger.info("message \(message.id) goes with \(later.count) more of its group") }
        return (first.joined(with: later), later.map(\.id))
    }

    /// Parts joined to their group's first, whose hand-over ended: a restart need not repeat them.
    private func done(_ parts: [String]) {
        for id in parts { journal.done(id) }
    }

    private func finished(_ id: String) async {
        journal.done(id)
        await save()
    }
}
