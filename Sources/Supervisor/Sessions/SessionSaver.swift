import FoundationEssentials
import PiRelaySDK

/// Writes the session records on a thread of its own. A save is JSON of every session, an fsync
/// and a rename: milliseconds, and tens of them on a busy disk, that must not hold one of the
/// cooperative pool's few threads (there are as many as cores) while other sessions stream.
/// Callers still wait for their save to be on disk, suspended rather than blocking. Saves that
/// queue up while one is being written are folded into one write of the newest records.
///
/// A save comes with every run that starts or ends, and most records have not changed since the
/// last one: each record's JSON is kept and only changed records are encoded again (with 220
/// sessions, encoding them all was an eighth of the daemon's CPU while 20 of them streamed).
package final class SessionSaver: @unchecked Sendable {
    private let store: StateFile<SessionRecord>
    private let cond = ThreadCondition()
    private var next: [SessionRecord]?
    private var waiting: [CheckedContinuation<String?, Never>] = []
    /// Touched only by the saver's thread.
    private var encoded: [String: (record: SessionRecord, json: [UInt8])] = [:]

    package init(store: StateFile<SessionRecord>) {
        self.store = store
        // The thread lives as long as the daemon: one saver per Sessions, made once.
        DedicatedThread.start("pi-relayd.sessions-save") { [self] in loop() }
    }

    /// Saves `records` (or a newer list handed in meanwhile). Returns the error text, or nil once
    /// the file holds them.
    package func save(_ records: [SessionRecord]) async -> String? {
        await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
            cond.lock()
            next = records
            waiting.append(c)
            cond.signal()
            cond.unlock()
        }
    }

    private func loop() {
        while true {
            cond.lock()
            while next == nil { cond.wait() }
            let records = next!
            let done = waiting
            next = nil
            waiting = []
            cond.unlock()
            var failure: String?
            do { try write(records) } catch { failure = "\(error)" }
            for waiter in done { waiter.resume(returning: failure) }
        }
    }

    private func write(_ records: [SessionRecord]) throws {
        var kept: [String: (record: SessionRecord, json: [UInt8])] = [:]
        var lines: [[UInt8]] = []
        // Sorted by position: moving 220 records around costs more than comparing them.
        for record in records.indices.sorted(by: { store.order(records[$0], records[$1]) }).map({ records[$0] }) {
            let json: [UInt8]
            if let old = encoded[record.id], old.record == record { json = old.json } else { json = try store.encode(record) }
            kept[record.id] = (record, json)
            lines.append(json)
        }
        encoded = kept
        try store.save(encoded: lines)
    }
}
