import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Runs' answers as they grow, one `LiveRun` per run and conversation: each finished chunk its
/// own message, and one message edited with the live tail. Views arriving faster than the
/// platform lets the bot write are coalesced: the writer waits its turn in the messenger's pacer
/// and then sends only the newest. The final answer takes over: `finish` waits for a write in
/// flight and hands back the messages to turn into the answer. What each run shows is saved, an
/// edit before it goes out, so a plugin restarted mid-answer edits the same messages instead of
/// leaving them behind and showing the answer twice, and does not repeat an edit the platform
/// already took.
public actor LiveMessages<Writer: LiveWriter> {
    public typealias Place = Writer.Place
    public typealias Message = LiveRun<Writer.MessageID>.Message

    /// Where releases before per-run files kept every run's messages in one file. Still read;
    /// the first write after an upgrade moves its runs into `folder`.
    public static var file: String { "live-messages.json" }
    /// Each run's messages in a file of its own, rewritten as its answer grows: a save then
    /// costs one run, not all the runs kept.
    public static var folder: String { "live-messages" }
    /// Runs kept in memory and on disk; older ones are forgotten.
    static var kept: Int { 200 }

    private struct Entry {
        var place: Place
        var run: LiveRun<Writer.MessageID>
        var writer: Task<Void, Never>?
        /// The platform refused the view for good (`LiveWriter.givesUp`): no writes till the final.
        var refused = false
    }

    private let writer: Writer
    private let logger: Logger
    private let store: StateStore
    /// Whether the platform shows two texts as one (then no edit is made).
    public nonisolated let same: @Sendable (String, String) -> Bool
    private let onView: (@Sendable (Place) async -> Void)?
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var saved: [String: [Message]]
    /// The keys of `saved`, the least recently written first: what goes when more than `kept`
    /// are saved (runs whose final never came, say). A restarted plugin has none in memory, and
    /// must not forget the runs still streaming with them.
    private var savedOrder: [String]
    /// How many run files were written: each write's version (`StateStore.rewrite`).
    private var persisted = 0
    /// `file` is still on disk and not yet split into `folder`.
    private var legacy: Bool

    /// `same`: whether the platform shows two texts as one (then no edit is made). `onView`:
    /// called with each view taken, before its write starts (a typing indicator kept alive).
    public init(
        writer: Writer, store: StateStore, logger: Logger, same: @escaping @Sendable (String, String) -> Bool = { $0 == $1 },
        onView: (@Sendable (Place) async -> Void)? = nil
    ) {
        self.writer = writer
        self.store = store
        self.logger = logger
        self.same = same
        self.onView = onView
        var saved = store.load([String: [Message]].self, from: Self.file) ?? [:]
        legacy = FileManager.default.fileExists(atPath: store.path(Self.file))
        let folder = store.path(Self.folder)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var order = Array(saved.keys)
        var files: [(key: String, written: Double)] = []
        // A run's own file is newer than what the old single file said of it.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".json") {
            guard let file = store.load(LiveRunFile<Writer.MessageID>.self, from: Self.folder + "/" + name) else { continue }
            saved[file.key] = file.messages
            files.append((file.key, Self.written(folder + "/" + name)))
        }
        let filed = Set(files.map(\.key))
        order.removeAll { filed.contains($0) }
        order += files.sorted { $0.written < $1.written }.map(\.key)
        self.saved = saved
        savedOrder = order
    }

    private static func key(_ run: String, _ place: Place) -> String { run + " " + place.key }

    /// When a run's file was last written, in seconds (0 when it cannot be told): the newer of
    /// its two slots (`RewrittenFile`).
    private static func written(_ path: String) -> Double {
        [path, path + ".b"].map { slot in
            var info = stat()
            guard stat(slot, &info) == 0 else { return 0 }
            return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        }.max() ?? 0
    }

    /// A run's file in `folder`, named by a hash of its key (which may hold any character, at
    /// any length); the file holds the key itself.
    private static func path(_ key: String) -> String {
        folder + "/" + Digest.hex64(key) + ".json"
    }

    /// The runs of an upgraded plugin's single file go into files of their own, once.
    private func splitLegacy() async {
        guard legacy else { return }
        legacy = false
        for (key, messages) in saved { await store.rewrite(LiveRunFile(key: key, messages: messages), in: Self.path(key)) }
        await store.remove(Self.file)
    }

    /// Takes in what a messenger's own earlier state file said each run shows, before the first
    /// `LiveMessages` on `store` starts: a plugin upgraded mid-answer then edits those messages.
    /// Runs the kit's file already has are left as they are.
    public static func adopt(_ runs: [(run: String, place: Place, messages: [Message])], in store: StateStore) async -> Bool {
        var saved = store.load([String: [Message]].self, from: file) ?? [:]
        for (run, place, messages) in runs where saved[key(run, place)] == nil { saved[key(run, place)] = messages }
        return await store.save(saved, to: file)
    }

    /// A run first seen by this process starts from what an earlier one showed of it.
    private func entry(_ key: String, place: Place) -> Entry {
        if let entry = entries[key] { return entry }
        order.append(key)
        if order.count > Self.kept { entries[order.removeFirst()] = nil }
        return Entry(place: place, run: LiveRun(messages: saved[key] ?? [], same: same))
    }

    /// Rewritten in place and not flushed (`StateStore.rewrite`): it changes at each edit. A
    /// plugin killed mid-write finds the run's messages as the write before left them; a machine
    /// that loses the file costs at worst an answer posted anew instead of edited.
    private func persist(_ key: String) async {
        guard let entry = entries[key] else { return }
        // Numbered as copied: two writes of one run that reach the store out of order never
        // leave the older message ids on disk.
        let file = LiveRunFile(key: key, messages: entry.run.messages)
        persisted += 1
        let version = persisted
        saved[key] = entry.run.messages
        if savedOrder.last != key {
            savedOrder.removeAll { $0 == key }
            savedOrder.append(key)
        }
        await splitLegacy()
        while saved.count > Self.kept, let old = savedOrder.first(where: { entries[$0] == nil }) {
            savedOrder.removeAll { $0 == old }
            saved[old] = nil
            await store.remove(Self.path(old))
        }
        await store.rewrite(file, in: Self.path(key), version: version)
    }

    /// Runs still streaming.
    public var activeCount: Int { entries.values.filter { !$0.run.finished }.count }

    /// Takes a view; stale (`rev` not above the newest) and post-final views are ignored.
    public func update(runID run: String, place: Place, rev: Int, chunks: [String], tail: String) async {
        // One set of messages per run and conversation: a session watched from two streams to both.
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        let taken = entry.run.take(rev: rev, chunks: chunks, tail: tail)
        entries[key] = entry
        guard taken else { return }
        await onView?(place)
        // Unstructured on purpose: the writer drains views at the platform's pace while newer
        // ones replace what it has not sent yet. A writer already at work takes this view too.
        if entries[key]?.writer == nil, entries[key]?.refused == false { entries[key]?.writer = Task { await self.write(key, run: run) } }
    }

    /// `chat.live`: the view, at `place`, the view's target as the messenger reads it; a target
    /// it could not take (nil) is logged and dropped.
    public func show(_ view: ChatLiveParams, at place: Place?) async {
        guard let place else {
            logger.debug("chat.live for \(view.target.channel), which this messenger cannot take, ignored")
            return
        }
        await update(runID: view.runID, place: place, rev: view.rev, chunks: view.chunks, tail: view.tail)
    }

    /// The run's final answer is here: no more live writes. Returns the messages the run shows,
    /// in order, to turn into the answer's chunks.
    public func finish(_ run: String, in place: Place) async -> [Message] {
        let key = Self.key(run, place)
        var entry = entry(key, place: place)
        entry.run.finished = true
        entries[key] = entry
        // A live write still waiting for its place gives way: the final replaces it anyway.
        if entry.writer != nil { await writer.finalTakesOver(run: run, messages: entry.run.messages.map(\.id), in: place) }
        await entry.writer?.value
        return entries[key]?.run.messages ?? []
    }

    /// The final answer is out: what the run showed need not be remembered any more. Not done in
    /// `finish`, which comes before the final is posted: a plugin killed in between must still
    /// find the messages to turn into the answer.
    public func done(_ run: String, in place: Place) async {
        let key = Self.key(run, place)
        guard saved[key] != nil else { return }
        saved[key] = nil
        savedOrder.removeAll { $0 == key }
        await splitLegacy()
        await store.remove(Self.path(key))
    }

    private func write(_ key: String, run: String) async {
        var failed = false
        while let place = entries[key]?.place, entries[key]?.run.nextWrite() != nil {
            do {
                try await writer.liveTurn(in: place, run: run)
                // The newest view, as it is now that the budget allows the write; nothing when
                // the final took over meanwhile.
                guard let entry = entries[key], let next = entry.run.nextWrite() else { break }
                // Each answer awaited first, then stored: an access to `entries` held across the
                // await would overlap the views that arrive meanwhile.
                switch next {
                case .send(let index, let text):
                    let id = try await writer.sendLive(text, to: entry.place, slot: LiveSlot(run: run, index: index))
                    entries[key]?.run.sent(index, id: id, text: text)
                case .edit(let index, let id, let text):
                    entries[key]?.run.editing(index, to: text)
                    await persist(key)
                    let now = try await writer.editLive(id, in: entry.place, to: text)
                    entries[key]?.run.edited(index, to: text, id: now)
                }
                await persist(key)
            } catch is LiveEditSuperseded {
                // The final took over; the edit in doubt stays in doubt, so the final makes it.
                if entries[key]?.run.finished == true { break }
                continue
            } catch {
                if writer.givesUp(after: error) {
                    logger.warning("live view of \(key): \(error); the final answer will be posted on its own")
                    entries[key]?.refused = true
                } else {
                    logger.warning("live view of \(key): \(error)")
                }
                failed = true
                break
            }
        }
        entries[key]?.writer = nil
        // A view that came in while the last write was going out, and after the loop looked.
        if !failed, entries[key]?.run.nextWrite() != nil {
            entries[key]?.writer = Task { await self.write(key, run: run) }
        }
    }
}
