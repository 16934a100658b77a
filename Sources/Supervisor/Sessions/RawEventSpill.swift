import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The full payloads of the events the history keeps abridged (a message's end with its whole
/// text, a tool call's start with all its arguments and its end with its result), one JSON line
/// each in `state/history/SESSION.jsonl` (owner-only), for `history --raw` (seed 004's bridge
/// spills them the same way). Capped by bytes: past the cap, the older half goes.
package struct RawEventSpill {
    /// The event types spilled: the ones whose compact preview leaves something out.
    package static let types: Set<String> = ["message_end", "tool_execution_start", "tool_execution_end"]

    package let path: String
    package let maxBytes: Int
    private var size: Int

    package init(path: String, maxBytes: Int) {
        self.path = path
        self.maxBytes = max(4096, maxBytes)
        var info = stat()
        size = stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// One event as pi wrote it. A failed write loses only this payload; the compact history
    /// still has the event.
    package mutating func append(type: String, line: [UInt8], at time: Date) {
        var entry = Array("{\"time\":\"\(ISO8601.string(time))\",\"type\":\"\(type)\",\"event\":".utf8)
        entry += line
        entry += Array("}\n".utf8)
        if size + entry.count > maxBytes { trim(toFit: entry.count) }
        let folder = path.parentPath
        mkdir(folder, 0o700)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let written = entry.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written == entry.count { size += entry.count }
    }

    /// The spilled events, oldest first: of `types` (all spilled ones when nil), since `since`,
    /// the newest `limit`.
    package func entries(types: Set<String>?, since: Date?, limit: Int) -> [JSONValue] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var out: [JSONValue] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? JSONValue.parse(bytes: Array(line)) else { continue }
            if let types, !types.contains(entry["type"]?.stringValue ?? "") { continue }
            if let since, let time = entry["time"]?.stringValue.flatMap(ISO8601.date), time < since { continue }
            out.append(entry)
        }
        return Array(out.suffix(max(0, limit)))
    }

    /// The session ended: its payloads go with it.
    package mutating func remove() {
        unlink(path)
        size = 0
    }

    /// Keeps the newest lines within half the cap, less room for `incoming`.
    private mutating func trim(toFit incoming: Int) {
        guard let data = FileManager.default.contents(atPath: path) else {
            size = 0
            return
        }
        var kept: [[UInt8]] = []
        var total = 0
        for line in data.split(separator: UInt8(ascii: "\n")).reversed() {
            if total + line.count + 1 + incoming > maxBytes / 2 { break }
            kept.append(Array(line) + [UInt8(ascii: "\n")])
            total += line.count + 1
        }
        let bytes = kept.reversed().flatMap { $0 }
        // Not flushed, as the appends are not: this runs on the pipe thread every session's
        // output is read on, and an fsync there stalls them all (a lost tail costs only payloads
        // the compact history has the gist of).
        if AtomicFile.write(bytes, to: path, durable: false) { size = bytes.count }
    }
}
