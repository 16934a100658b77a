import Logging
import PiRelaySDK

/// A run's answer as it grows: each finished chunk its own message, and one message edited with
/// the live tail. Views arriving faster than Telegram lets the bot write (about once a second
/// per chat, all writes counted) are coalesced: only the newest is sent. The final answer takes
/// over: `finish` waits for a write in flight and hands back the live message to edit. What each
/// run has shown is saved, so a plugin restarted mid-answer edits the same message instead of
/// leaving it behind and showing the answer twice.
actor LiveMessages {
    /// What a run has put in a chat, as saved.
    struct Shown: Codable, Sendable {
        var posted: Int
        var liveMessage: Int?
        var text: String
    }

    static let file = "live.json"

    struct Run {
        var place: Place
        var rev = 0
        var chunks: [String] = []
        var tail = ""
        /// Chunks already posted as messages of their own.
        var posted = 0
        var liveMessage: Int?
        var shownTail = ""
        var writer: Task<Void, Never>?
        var finished = false
    }

    private let poster: Poster
    private let typing: Typing
    private let logger: Logger
    private let store: StateStore
    private var runs: [String: Run] = [:]
    private var order: [String] = []
    private var saved: [String: Shown]

    init(poster: Poster, typing: Typing, store: StateStore, logger: Logger) {
        self.poster = poster
        self.typing = typing
        self.store = store
        self.logger = logger
        saved = store.load([String: Shown].self, from: Self.file) ?? [:]
    }

    /// A run first seen by this process: what an earlier one showed of it, if anything.
    private func newRun(_ key: String, place: Place) -> Run {
        var run = Run(place: place)
        if let shown = saved[key] {
            run.posted = shown.posted
            run.liveMessage = shown.liveMessage
            run.shownTail = shown.text
        }
        return run
    }

    private func persist(_ key: String) async {
        guard let run = runs[key] else { return }
        saved[key] = Shown(posted: run.posted, liveMessage: run.liveMessage, text: run.shownTail)
        if saved.count > 200 { saved = saved.filter { runs[$0.key] != nil } }
        await store.save(saved, to: Self.file)
    }

    var activeCount: Int { runs.values.filter { !$0.finished }.count }

    /// Takes a view; stale (`rev` not above the newest) and post-final views are ignored.
    func update(runID run: String, place: Place, rev: Int, chunks: [String], tail: String) async {
        // One live message per run and chat: a session watched from two chats streams to both.
        let runID = run + " " + place.key
        var run = runs[runID] ?? newRun(runID, place: place)
        if runs[runID] == nil {
            order.append(runID)
            if order.count > 200 { runs[order.removeFirst()] = nil }
        }
        guard !run.finished, rev > run.rev else { return }
        run.rev = rev
        run.chunks = chunks
        run.tail = tail
        let idle = run.writer == nil
        runs[runID] = run
        await typing.keep(place)
        // Unstructured on purpose: the writer drains views at Telegram's pace while newer ones
        // replace what it has not sent yet.
        if idle { runs[runID]?.writer = Task { await self.write(runID) } }
    }

    /// The run's final answer is here: no more live writes. Returns the live message to turn
    /// into the answer's first chunk, if there is one, and what it shows (an edit to the same
    /// text is one Telegram refuses as not modified).
    func finish(_ run: String, in place: Place) async -> (message: Int, shown: String)? {
        let runID = run + " " + place.key
        var run = runs[runID] ?? newRun(runID, place: place)
        run.finished = true
        runs[runID] = run
        await run.writer?.value
        guard let after = runs[runID], let message = after.liveMessage else { return nil }
        return (message, after.shownTail)
    }

    /// The final answer is out: what the run showed need not be remembered any more. Not done in
    /// `finish`, which comes before the final is posted: a plugin killed in between must still
    /// find the live message to turn into the answer.
    func done(_ run: String, in place: Place) async {
        let key = run + " " + place.key
        guard saved[key] != nil else { return }
        saved[key] = nil
        await store.save(saved, to: Self.file)
    }

    private func write(_ runID: String) async {
        var failed = false
        while let run = runs[runID], !run.finished {
            if run.posted < run.chunks.count {
                let chunk = run.chunks[run.posted]
                do {
                    if let live = run.liveMessage {
                        if !TelegramText.sameMessage(run.shownTail, chunk) { try await poster.edit(live, in: run.place, to: chunk) }
                        runs[runID]?.liveMessage = nil
                        runs[runID]?.shownTail = ""
                    } else {
                        try await poster.send(chunk, to: run.place, quiet: true)
                    }
                    runs[runID]?.posted += 1
                    await persist(runID)
                } catch {
                    logger.warning("live chunk of \(runID): \(error)")
                    failed = true
                    break
                }
                continue
            }
            let tail = run.tail
            guard !tail.trimmed().isEmpty, !TelegramText.sameMessage(tail, run.shownTail) else { break }
            do {
                if let live = run.liveMessage {
                    try await poster.edit(live, in: run.place, to: tail)
                } else {
                    let id = try await poster.send(tail, to: run.place, quiet: true)
                    runs[runID]?.liveMessage = id
                }
                runs[runID]?.shownTail = tail
                await persist(runID)
            } catch {
                logger.warning("live view of \(runID): \(error)")
                failed = true
                break
            }
        }
        runs[runID]?.writer = nil
        // A view that came in while the last write was going out, and after the loop looked.
        if !failed, let run = runs[runID], !run.finished, run.posted < run.chunks.count || (run.tail != run.shownTail && !run.tail.isEmpty) {
            runs[runID]?.writer = Task { await self.write(runID) }
        }
    }
}
