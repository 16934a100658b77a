import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Chat messages already acted on, by messenger and message id. A messenger that crashes while
/// its `chat.message` is in flight hands the message over again when it is back (the Discord
/// plugin journals what it took in); without this, the prompt would reach pi twice. The newest
/// `limit` ids are kept, and saved under `state/` so a restarted daemon still knows them.
///
/// The file is a journal of JSON lines: `{"add":KEY}`, `{"remove":KEY}`, `{"done":KEY}` (pi took
/// it, or it was answered) and `{"ids":[...],"inHand":[...]}` (the whole list, as a rewrite
/// leaves it). A key added and not done when the daemon stopped was cut off while it waited for
/// pi (to start, to finish compacting, for its attachments): `wasCutOff` says so of its repeat. `save()` runs before every prompt, so it appends the new
/// records with one write: no fsync and no rename, which cost ~1.5 ms a message here. A write the
/// kernel has taken survives a daemon that is killed, which is what this guards against (the
/// outbox journal relies on the same). The journal is rewritten whole, atomically, once it holds
/// twice `limit` records, or when its last record was torn.
package struct HandledMessages: Sendable {
    package static let limit = 4000

    package let path: String
    private var order: [String] = []
    private var known: Set<String> = []
    /// Added, and not yet done.
    private var inHand: Set<String> = []
    /// What was in hand when the file was read: the daemon before this one stopped during it.
    private var cutOff: Set<String> = []
    /// Records made since the last save, to append.
    private var unsaved: [JSONValue] = []
    /// Records in the journal on disk.
    private var records = 0
    private var rewrite = false

    package init(path: String, logger: Logger) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return }
        let bytes = [UInt8](data)
        var parsed = 0
        for line in bytes.split(separator: 0x0A) {
            guard let record = try? JSONValue.parse(bytes: line) else { continue }
            parsed += 1
            if let ids = record["ids"]?.arrayValue {
                order = []
                known = []
                for id in ids.compactMap(\.stringValue) { apply(insert: id) }
                inHand = Set((record["inHand"]?.arrayValue ?? []).compactMap(\.stringValue))
            } else if let key = record["add"]?.stringValue {
                apply(insert: key)
                inHand.insert(key)
            } else if let key = record["remove"]?.stringValue {
                apply(remove: key)
                inHand.remove(key)
            } else if let key = record["done"]?.stringValue {
                inHand.remove(key)
            }
        }
        records = parsed
        cutOff = inHand.intersection(known)
        // A torn last record (a daemon killed mid-write) would swallow the next one appended.
        if bytes.last != 0x0A || parsed == 0 { rewrite = true }
        if parsed == 0 {
            // Losing this list only risks a repeat of a message handed over twice; never fatal.
            logger.warning("\(path) is unreadable; starting with no record of handled chat messages")
        }
    }

    package func contains(_ key: String) -> Bool { known.contains(key) }

    /// Records `key`, in hand until `done`; false when it was already there.
    package mutating func insert(_ key: String) -> Bool {
        guard !known.contains(key) else { return false }
        apply(insert: key)
        inHand.insert(key)
        unsaved.append(["add": .string(key)])
        return true
    }

    /// Forgets `key`: its handling failed, so the messenger's retry must be acted on.
    package mutating func remove(_ key: String) {
        guard known.contains(key) else { return }
        apply(remove: key)
        inHand.remove(key)
        unsaved.append(["remove": .string(key)])
    }

    /// `key`'s handling is over: pi took the prompt, or the message was answered.
    package mutating func done(_ key: String) {
        guard inHand.remove(key) != nil else { return }
        unsaved.append(["done": .string(key)])
    }

    /// Whether the daemon before this one stopped while it handled `key`, so that it may never
    /// have reached pi; said once (the key is done after).
    package mutating func wasCutOff(_ key: String) -> Bool {
        guard cutOff.remove(key) != nil else { return false }
        done(key)
        return true
    }

    private mutating func apply(insert key: String) {
        guard known.insert(key).inserted else { return }
        order.append(key)
        if order.count > Self.limit {
            let drop = order.count - Self.limit
            for old in order.prefix(drop) {
                known.remove(old)
                inHand.remove(old)
            }
            order.removeFirst(drop)
        }
    }

    private mutating func apply(remove key: String) {
        guard known.remove(key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// Puts what changed since the last save on disk.
    package mutating func save() throws {
        if rewrite || records + unsaved.count > 2 * Self.limit {
            var out: [UInt8] = []
            let held = order.filter { inHand.contains($0) }
            JSONValue.object(["ids": .array(order.map { .string($0) }), "inHand": .array(held.map { .string($0) })]).write(to: &out)
            out.append(0x0A)
            try AtomicFile.writeOrThrow(out, to: path)
            records = 1
            rewrite = false
            unsaved = []
            return
        }
        guard !unsaved.isEmpty else { return }
        var out: [UInt8] = []
        for record in unsaved {
            record.write(to: &out)
            out.append(0x0A)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.WriteError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var off = 0
        while off < out.count {
            let written = out.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if written < 0 {
                if errno == EINTR { continue }
                // Perhaps half a record: the next save rewrites the journal whole.
                rewrite = true
                throw AtomicFile.WriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            off += written
        }
        records += unsaved.count
        unsaved = []
    }
}
