import Logging
import PiRelaySDK

/// Runs' answers as they grow, one `LiveRun` per run and chat: each finished chunk its own
/// message, and one message edited with the live tail. Views arriving faster than Telegram lets
/// the bot write (about once a second per chat, all writes counted) are coalesced: only the
/// newest is sent. The final answer takes over: `finish` waits for a write in flight and hands
/// back the messages to turn into the answer. What each run shows is saved, an edit before it
/// goes out, so a plugin restarted mid-answer edits the same messages instead of leaving them
/// behind and showing the answer twice, and does not repeat an edit Telegram already took.
actor LiveMessages {
    static let file = "live-messages.json"

    private struct Entry {
        var place: Place
        var run: LiveRun<Int>
        var writer: Task<Void, Never>?
    }

    private let poster: Poster
    private let typing: Typing
    private let logger: Logger
    private let store: StateStore
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var saved: [String: [LiveRun<Int>.Message]]

    init(poster: Poster, typing: Typing, store: StateStore, logger: Logger) {
        self.poster = poster
        self.typing = typing
        self.store = store
        self.logger = logger
        saved = store.load([String: [LiveRun<Int>.Message]].self, from: Self.file) ?? [:]
    }

    private static func key(_ run: String, _ place: Place) -> String { run + " " + place.key }

    /// A run first seen by this process starts from what an earlier one showed of it.
    private func entry(_ key: String, place: Place) -> Entry {
        if let entry = entries[key] { return entry }
        order.append(key)
        if order.count > 200 { entries[order.removeFirst()] = nil }
        return Entry(place: place, run: LiveRun(messages: saved[key] ?? [], same: TelegramText.sameMessage))
    }

    private func persist(_ key: String) async {
        guard let entry = entries[key] else { return }
        saved[key] = entry.run.messages
        if saved.count > 200 { saved = saved.filter { entries[$0.key] != nil } }
        await store.save(saved, to: Self.file)
    }

    var activeCount: Int { entries.values.filter { !$0.run.finished }.count }

    /// Takes a view; stale (`rev` not above the newest) and post-final views are ignored.
    func update(runID run: String, place: Place, rev: Int, chunks: [String], tail: String) async {
        // One set of messages per run and chat: a session watched from two chats streams to both.
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        let taken = entry.run.take(rev: rev, chunks: chunks, tail: tail)
        let idle = entry.writer == nil
        entries[key] = entry
        guard taken else { return }
        await typing.keep(place)
        // Unstructured on purpose: the writer drains views at Telegram's pace while newer ones
        // replace what it has not sent yet.
        if idle { entries[key]?.writer = Task { await self.write(key) } }
    }

    /// The run's final answer is here: no more live writes. Returns the messages the run shows,
    /// in order, to turn into the answer's chunks.
    func finish(_ run: String, in place: Place) async -> [LiveRun<Int>.Message] {
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        entry.run.finished = true
        entries[key] = entry
        await entry.writer?.value
        return entries[key]?.run.messages ?? []
    }

    /// The final answer is out: what the run showed need not be remembered any more. Not done in
    /// `finish`, which comes before the final is posted: a plugin killed in between must still
    /// find the messages to turn into the answer.
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
                switch next {
                case .send(let index, let text):
                    let id = try await poster.send(text, to: entry.place, quiet: true)
                    entries[key]?.run.sent(index, id: id, text: text)
                case .edit(let index, let messageID, let text):
                    entries[key]?.run.editing(index, to: text)
                    await persist(key)
                    try await poster.edit(messageID, in: entry.place, to: text)
                    entries[key]?.run.edited(index, to: text)
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
