import FoundationEssentials
import PiRelaySDK

/// What happened in a session, for those who look back or watch: its events, kept within the
/// configured bounds (`history`), the short lines `/recent` shows, and the `stream` clients
/// that get each event as it is recorded.
package struct SessionHistory {
    private var events: EventHistory
    /// The abridged events' whole payloads, for `history --raw`; nil keeps none.
    private var spill: RawEventSpill?
    package private(set) var activity = ActivityLog()
    private var watchers: [UUID: AsyncStream<JSONValue>.Continuation] = [:]

    package init(maxEntries: Int, maxBytes: Int, spillPath: String? = nil) {
        events = EventHistory(maxEntries: maxEntries, maxBytes: maxBytes)
        spill = spillPath.map { RawEventSpill(path: $0, maxBytes: maxBytes) }
    }

    /// pi's line for an event whose preview leaves something out (`RawEventSpill.types`).
    package mutating func spill(type: String, line: [UInt8], at now: Date) {
        spill?.append(type: type, line: line, at: now)
    }

    /// The session ended: its spilled payloads go.
    package mutating func dropSpill() {
        spill?.remove()
    }

    package var count: Int { events.count }
    package var bytes: Int { events.totalBytes }

    /// An event of `session` with its preview.
    package mutating func record(type: String, _ preview: JSONValue, session: String, at now: Date) {
        events.append(type: type, preview: preview, at: now)
        if let line = ActivityLog.line(type: type, preview) { activity.append(line, at: now) }
        if !watchers.isEmpty { tell(type: type, preview, session: session, at: now) }
    }

    /// A streamed delta (its first 200 characters), with no preview object built unless a
    /// watcher is there: one comes with nearly every pi line.
    package mutating func recordDelta(_ type: String, _ delta: String, session: String, at now: Date) {
        // Most deltas are a few words: no need to count their characters.
        let kept = delta.utf8.count <= 200 ? delta : String(delta.prefix(200))
        events.append(type: type, delta: kept, at: now)
        if !watchers.isEmpty { tell(type: type, ["delta": .string(kept)], session: session, at: now) }
    }

    /// A line for `/recent` that no pi event gives: a prompt, with who sent it.
    package mutating func note(_ text: String) {
        activity.append(text)
    }

    /// With `raw`, the spilled events come whole (`{type, time, event}`, pi's line as it was)
    /// in place of their previews, merged in time order with the rest.
    package func entries(types: Set<String>?, since: Date?, limit: Int, raw: Bool = false) -> [JSONValue] {
        guard raw, let spill else { return compact(types: types, since: since, limit: limit) }
        let spilled = RawEventSpill.types.intersection(types ?? RawEventSpill.types)
        let rest = compact(types: types, since: since, limit: limit).filter { !RawEventSpill.types.contains($0["type"]?.stringValue ?? "") }
        let whole = spilled.isEmpty ? [] : spill.entries(types: spilled, since: since, limit: limit)
        let merged = (rest + whole).enumerated().sorted { a, b in
            let (ta, tb) = (a.element["time"]?.stringValue ?? "", b.element["time"]?.stringValue ?? "")
            return ta == tb ? a.offset < b.offset : ta < tb
        }
        return Array(merged.map(\.element).suffix(max(0, limit)))
    }

    private func compact(types: Set<String>?, since: Date?, limit: Int) -> [JSONValue] {
        events.query(types: types, since: since, limit: limit).map { entry in
            var shown = entry.preview
            if case .object = shown {} else { shown = ["value": entry.preview] }
            shown["type"] = .string(entry.type)
            shown["time"] = .string(ISO8601.string(entry.time))
            return shown
        }
    }

    /// A `stream` client: every event from now on, the newest 2,000 kept while it lags.
    package mutating func watch() -> (UUID, AsyncStream<JSONValue>) {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream(bufferingPolicy: .bufferingNewest(2000))
        let key = UUID()
        watchers[key] = continuation
        return (key, stream)
    }

    package mutating func unwatch(_ key: UUID) {
        watchers.removeValue(forKey: key)?.finish()
    }

    /// The session ends: every stream ends with it.
    package mutating func endWatching() {
        for (_, watcher) in watchers { watcher.finish() }
        watchers.removeAll()
    }

    private func tell(type: String, _ preview: JSONValue, session: String, at now: Date) {
        var entry = preview
        if case .object = entry {} else { entry = ["value": preview] }
        entry["type"] = .string(type)
        entry["time"] = .string(ISO8601.string(now))
        entry["session"] = .string(session)
        for (_, watcher) in watchers { watcher.yield(entry) }
    }
}
