import Logging
import PiRelaySDK

/// A run's answer as it grows: each finished chunk its own message, and one message updated
/// with `chat.update` for the live tail. Views arriving faster than `chat.update`'s tier lets
/// the bot edit are coalesced: the writer waits its turn in the pacer and then sends only the
/// newest. The final answer takes over: `finish` waits for a write in flight and hands back the
/// live message to turn into the answer. What each run has shown is saved, so a plugin restarted
/// mid-answer updates the same message instead of leaving it behind and showing the answer twice.
actor LiveMessages {
    /// What a run has put in a conversation, as saved.
    struct Shown: Codable, Sendable {
        var posted: Int
        var liveMessage: String?
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
        var liveMessage: String?
        var shownTail = ""
        var writer: Task<Void, Never>?
        var finished = false
    }

    private let poster: Poster
    private let logger: Logger
    private let store: StateStore
    private var runs: [String: Run] = [:]
    private var order: [String] = []
    private var saved: [String: Shown]

    init(poster: Poster, store: StateStore, logger: Logger) {
        self.poster = poster
        self.store = store
        self.logger = logger
        saved = store.load([String: Shown].self, from: Self.file) ?? [:]
    }

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
    func update(runID run: String, place: Place, rev: Int, chunks: [String], tail: String) {
        // One live message per run and conversation: a session watched from two streams to both.
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
        // Unstructured on purpose: the writer drains views at Slack's pace while newer ones
        // replace what it has not sent yet.
        if idle { runs[runID]?.writer = Task { await self.write(runID) } }
    }

    /// The run's final answer is here: no more live writes. Returns the live message to turn
    /// into the answer's first chunk, if there is one, and what it shows.
    func finish(_ run: String, in place: Place) async -> (ts: String, shown: String)? {
        let runID = run + " " + place.key
        var run = runs[runID] ?? newRun(runID, place: place)
        run.finished = true
        runs[runID] = run
        await run.writer?.value
        guard let after = runs[runID], let ts = after.liveMessage else { return nil }
        return (ts, after.shownTail)
    }

    /// The final answer is out: what the run showed need not be remembered any more. Not done in
    /// `finish`: a plugin killed in between must still find the live message.
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
                        if run.shownTail != chunk { try await poster.edit(live, in: run.place, to: chunk) }
                        runs[runID]?.liveMessage = nil
                        runs[runID]?.shownTail = ""
                    } else {
                        try await poster.send(chunk, to: run.place)
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
            guard !tail.trimmed().isEmpty, tail != run.shownTail else { break }
            do {
                if let live = run.liveMessage {
                    let ts = try await poster.edit(live, in: run.place, to: tail)
                    runs[runID]?.liveMessage = ts
                } else {
                    // Awaited first, then stored: an access to `runs` held across the await would
                    // overlap the views that arrive meanwhile (a heap corruption the soak found).
                    let ts = try await poster.send(tail, to: run.place)
                    runs[runID]?.liveMessage = ts
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
