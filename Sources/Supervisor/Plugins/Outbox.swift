import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Deliveries a plugin has not acknowledged yet, kept on disk as an append-only journal so they
/// survive a plugin crash and a daemon restart. Replayed, in order, to each new instance.
package struct Outbox {
    package struct Entry: Sendable, Equatable {
        package var id: String
        package var method: String
        package var params: JSONValue
        /// When it was added (seconds since 1970), for the age of the oldest in `status` and
        /// metrics. Journals written before it was kept read as their load time.
        package var addedAt: Double = Date().timeIntervalSince1970

        /// The same delivery, whenever it was added.
        package static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.id == rhs.id && lhs.method == rhs.method && lhs.params == rhs.params
        }
    }

    /// How long the oldest unacknowledged delivery has waited, in seconds (0 when none waits).
    package func oldestAge(now: Double = Date().timeIntervalSince1970) -> Double {
        entries.first.map { max(0, now - $0.addedAt) } ?? 0
    }

    package let path: String
    package let limit: Int
    package private(set) var entries: [Entry] = []
    private var journalLines = 0
    package private(set) var lastError: String?
    /// Deliveries refused because the outbox was full, and when the first was: they are lost,
    /// so `status` says so until the daemon restarts.
    package private(set) var refused = 0
    package private(set) var refusedSince: Double?
    /// A write to the journal failed, maybe after writing part of a record (a full disk): the
    /// journal misses what is in memory and may end in a torn line.
    private var journalBehind = false

    package init(path: String, limit: Int) {
        self.path = path
        self.limit = limit
        load()
    }

    package enum AddError: Error, CustomStringConvertible {
        case full(Int)
        package var description: String {
            switch self {
            case .full(let count): return "outbox full (\(count) unacknowledged messages)"
            }
        }
    }

    package mutating func add(_ entry: Entry) throws {
        guard entries.count < limit else {
            refused += 1
            if refusedSince == nil { refusedSince = Date().timeIntervalSince1970 }
            throw AddError.full(entries.count)
        }
        entries.append(entry)
        append(Self.addRecord(entry))
    }

    /// Returns false for an unknown id (a duplicate ack).
    @discardableResult
    package mutating func ack(_ id: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: index)
        append(["op": "ack", "id": .string(id)])
        if journalLines > 2 * entries.count + 200 { compact() }
        return true
    }

    /// Deliveries set aside as poison (`DeliveryFlight`), and when the first was: `status` says
    /// so, and where they are kept, until the daemon restarts.
    package private(set) var setAside = 0
    package private(set) var setAsideSince: Double?
    /// Why the last set-aside delivery could not be kept, until one is.
    package private(set) var setAsideError: String?
    /// Where set-aside deliveries are kept, one JSON line each, for the operator to read.
    package var setAsidePath: String {
        (path.hasSuffix(".jsonl") ? String(path.dropLast(6)) : path) + ".set-aside.jsonl"
    }

    /// Takes `id` out of the outbox, keeping it in `setAsidePath` with `why`. Returns false for
    /// an id the outbox does not hold, or when the copy could not be written (the delivery is
    /// still taken out: replayed, it would crash the plugin again).
    @discardableResult
    package mutating func setAside(_ id: String, why: String, now: Double = Date().timeIntervalSince1970) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        var record = Self.addRecord(entries[index])
        record["op"] = "setAside"
        record["why"] = .string(why)
        record["setAsideAt"] = .number(now)
        var bytes = record.serializedBytes()
        bytes.append(0x0A)
        // Kept before the journal forgets it.
        setAsideError = Self.appendBytes(bytes, to: setAsidePath).map { "could not be kept: \($0)" }
        ack(id)
        setAside += 1
        if setAsideSince == nil { setAsideSince = now }
        return setAsideError == nil
    }

    private mutating func load() {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        var framer = LineFramer()
        var lines: [[UInt8]] = []
        framer.feed([UInt8](data)) { if case .line(let line) = $0 { lines.append(line) } }
        for line in lines {
            guard let record = try? JSONValue.parse(bytes: line), let op = record["op"]?.stringValue,
                let id = record["id"]?.stringValue
            else { continue }
            if op == "add", let method = record["method"]?.stringValue {
                var entry = Entry(id: id, method: method, params: record["params"] ?? [:])
                if let at = record["at"]?.doubleValue { entry.addedAt = at }
                entries.append(entry)
            } else if op == "ack" {
                entries.removeAll { $0.id == id }
            }
            journalLines += 1
        }
        // A daemon killed mid-append leaves a torn last record, which is dropped above. Rewrite
        // the journal, or the next record would be appended onto that line and be lost with it.
        if let last = data.last, last != 0x0A { compact() }
    }

    private mutating func append(_ record: JSONValue) {
        // Appending after a failed write would glue this record onto a torn one, and a restart
        // would lose both: rewrite the journal from memory instead, this record included.
        if journalBehind {
            compact()
            return
        }
        var bytes = record.serializedBytes()
        bytes.append(0x0A)
        if let failure = Self.appendBytes(bytes, to: path) {
            lastError = failure
            journalBehind = true
        } else {
            lastError = nil
            journalLines += 1
        }
    }

    /// Appends `bytes` to `path` (owner-only, made if missing) in one write; nil when all of
    /// them were written, else why not (a short write may leave part of them).
    private static func appendBytes(_ bytes: [UInt8], to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot open \(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written != bytes.count else { return nil }
        return "cannot write \(path): " + (written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(bytes.count) bytes written")
    }

    private static func addRecord(_ entry: Entry) -> JSONValue {
        ["op": "add", "id": .string(entry.id), "method": .string(entry.method), "params": entry.params, "at": .number(entry.addedAt)]
    }

    private mutating func compact() {
        var out: [UInt8] = []
        for entry in entries {
            Self.addRecord(entry).write(to: &out)
            out.append(0x0A)
        }
        do {
            try AtomicFile.writeOrThrow(out, to: path)
            journalLines = entries.count
            journalBehind = false
            lastError = nil
        } catch {
            lastError = "\(error)"
            journalBehind = true
        }
    }
}
