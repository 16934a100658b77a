import MessengerKit
import PiRelaySDK

/// Where each open question was posted and what its controls stand for, so a click maps back to
/// its answer and `chat.question.closed` can edit the message. Saved: a question can outlive a
/// plugin restart, and so can a closing not yet shown.
///
/// A closing is noted here (`close`) and shown beside the delivery lane (`QuestionClosings`): its
/// edit is a `chat.update`, whose Tier 3 budget the whole workspace's live views share.
actor QuestionMessages: QuestionClosings {
    struct Posted: Codable, Sendable, Equatable {
        var channel: String
        var thread: String?
        var ts: String
        var sessionID: String
        var questionID: String
        var title: String
        var options: [String]
        /// Who answered by a click, for the closing edit.
        var answeredBy: String?
        /// What the closed question's message is to say, once the supervisor closed it; the
        /// record goes when its message says it.
        var closing: String?
    }

    static let file = "questions.json"
    private var posted: [Posted]
    /// Questions this process closed: a closing retried after its message was shown and
    /// forgotten (the save that failed first) is still known, and posts no message of its own.
    private var closed: Set<String> = []
    private let store: StateStore
    /// Questions being posted, whose ts Slack has not answered yet.
    private var posting = 0

    nonisolated let closingsNoted: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(store: StateStore) {
        self.store = store
        posted = store.load([Posted].self, from: Self.file) ?? []
        (closingsNoted, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Closings a previous run noted and did not show.
        if posted.contains(where: { $0.closing != nil }) { wake.yield() }
    }

    /// Questions still open.
    var count: Int { posted.filter { $0.closing == nil }.count }

    /// A question is being posted: a click on it may come before its `add`.
    func postStarted() { posting += 1 }

    /// Its post failed: no `add` follows.
    func postFailed() { posting -= 1 }

    func add(_ message: Posted) async {
        posting = max(0, posting - 1)
        posted.append(message)
        if posted.count > 500 { posted.removeFirst(posted.count - 500) }
        await store.save(posted, to: Self.file)
    }

    /// The open question posted as message `ts` in `channel`. Slack shows a message before it
    /// answers its post, so a quick click can come before the question is known here: while a
    /// question is being posted, this waits for it, up to `wait`.
    func find(channel: String, ts: String, wait: Duration = .seconds(5)) async -> Posted? {
        let deadline = ContinuousClock.now + wait
        while true {
            if let question = posted.first(where: { $0.channel == channel && $0.ts == ts && $0.closing == nil }) { return question }
            guard posting > 0, ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first click names who answered: the daemon takes the first answer, and a second
    /// click before the closing arrives is refused there ("no open question").
    func answered(channel: String, ts: String, by user: String) async {
        guard let index = posted.firstIndex(where: { $0.channel == channel && $0.ts == ts }), posted[index].answeredBy == nil else { return }
        posted[index].answeredBy = user
        await store.save(posted, to: Self.file)
    }

    /// The question is closed, and its messages are to say `text`: false when none of them is
    /// known here (it was never posted in Slack). A closing repeated (the delivery replayed after
    /// a crash) finds the first one noted, and changes nothing. Throws while the closing cannot
    /// be saved: the delivery stays unacknowledged, or a crash before the edit would leave the
    /// message's buttons live for good.
    func close(session: String, question: String, text: String) async throws -> Bool {
        let cards = posted.indices.filter { posted[$0].sessionID == session && posted[$0].questionID == question }
        guard !cards.isEmpty else { return closed.contains(session + "/" + question) }
        closed.insert(session + "/" + question)
        let open = cards.filter { posted[$0].closing == nil }
        for index in open { posted[index].closing = text }
        if !open.isEmpty { wake.yield() }
        guard await store.save(posted, to: Self.file) else { throw StateStore.NotSaved(file: Self.file) }
        return true
    }

    var nextClosing: (card: Posted, text: String)? {
        posted.first { $0.closing != nil }.map { ($0, $0.closing ?? "") }
    }

    func closingShown(_ message: Posted) async {
        posted.removeAll { $0.channel == message.channel && $0.ts == message.ts }
        await store.save(posted, to: Self.file)
    }
}
