import Logging
import PiRelaySDK

/// Runs' answers as they grow, one `LiveRun` per run and conversation: each finished chunk its
/// own message, and one message updated with `chat.update` for the live tail. Views arriving
/// faster than `chat.update`'s tier lets the bot edit are coalesced: the writer waits its turn in
/// the pacer and then sends only the newest. The final answer takes over: `finish` waits for a
/// write in flight and hands back the messages to turn into the answer. What each run shows is
/// saved, an edit before it goes out, so a plugin restarted mid-answer updates the same messages
/// instead of leaving them behind and showing the answer twice.
actor LiveMessages {
    static let file = "live-messages.json"

    private struct Entry {
        var place: Place
        var run: LiveRun<String>
        var writer: Task<Void, Never>?
    }

    private let poster: Poster
    private let logger: Logger
    private let store: StateStore
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var saved: [String: [LiveRun<String>.Message]]

    init(poster: Poster, store: StateStore, logger: Logger) {
        self.poster = poster
        self.store = store
        self.logger = logger
        saved = store.load([String: [LiveRun<String>.Message]].self, from: Self.file) ?? [:]
    }

    private static func key(_ run: String, _ place: Place) -> String { run + " " + place.key }

    /// A run first seen by this process starts from what an earlier one showed of it.
    private func entry(_ key: String, place: Place) -> Entry {
        if let entry = entries[key] { return entry }
        order.append(key)
        if order.count > 200 { entries[order.removeFirst()] = nil }
        return Entry(place: place, run: LiveRun(messages: saved[key] ?? []))
    }

    private func persist(_ key: String) async {
        guard let entry = entries[key] else { return }
        saved[key] = entry.run.messages
        if saved.count > 200 { saved = saved.filter { entries[$0.key] != nil } }
        await store.save(saved, to: Self.file)
    }

    var activeCount: Int { entries.values.filter { !$0.run.finished }.count }

    /// Takes a view; stale (`rev` not above the newest) and post-final views are ignored.
    func update(runID run: String, place: Place, rev: Int, chunks: [String], tail: String) {
        // One set of messages per run and conversation: a session watched from two streams to both.
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        let taken = entry.run.take(rev: rev, chunks: chunks, tail: tail)
        let idle = entry.writer == nil
        entries[key] = entry
        // Unstructured on purpose: the writer drains views at Slack's pace while newer ones
        // replace what it has not sent yet.
        if taken && idle { entries[key]?.writer = Task { await self.write(key) } }
    }

    /// The run's final answer is here: no more live writes. Returns the messages the run shows,
    /// in order, to turn into the answer's chunks.
    func finish(_ run: String, in place: Place) async -> [LiveRun<String>.Message] {
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        entry.run.finished = true
        entries[key] = entry
        await entry.writer?.value
        return entries[key]?.run.messages ?? []
    }

    /// The final answer is out: what the run showed need not be remembered any more. Not done in
    /// `finish`: a plugin killed in between must still find the messages.
    func done(_ run: String, in place: Place) async {
        let key = Self.key(run, place)
        guard saved[key] != nil else { return }
        saved[key] = nil
        await store.save(saved, to: Self.file)
    }

    private func write(_ key: String) async {
        var failed = false
        while let entry = entries[key], let next = entry.run.nextWrite() {
            do {
                // Each answer awaited first, then stored: an access to `entries` held across the
                // await would overlap the views that arrive meanwhile.
                switch next {
                case .send(let index, let text):
                    let ts = try await poster.send(text, to: entry.place)
                    entries[key]?.run.sent(index, id: ts, text: text)
                case .edit(let index, let ts, let text):
                    entries[key]?.run.editing(index, to: text)
                    await persist(key)
                    let now = try await poster.edit(ts, in: entry.place, to: text)
                    entries[key]?.run.edited(index, to: text, id: now)
                }
                await persist(key)
            } catch {
                logger.warning("live view of \(key): \(error)")
                failed = true
                break
            }
        }
        entries[key]?.writer = nil
        // A view that came in while the last write was going out, and after the loop looked.
        if !failed, entries[key]?.run.nextWrite() != nil {
            entries[key]?.writer = Task { await self.write(key) }
        }
    }
}
