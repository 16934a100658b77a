import PiRelaySDK

/// Requests sent to a plugin and not answered yet, by id. A request in flight on an instance
/// that dies goes to the next one, unless it was in flight during two crashes in a row: then it
/// is poison; or unless it is sent once (`MethodName.isSentOnce`): then it may have acted, and
/// is not sent again. Pure bookkeeping: the owner resumes the continuations it hands back.
package struct PendingRequests: Sendable {
    /// What an instance's end took out: requests that crashed it twice, and requests sent once
    /// that were in flight on it.
    package struct Ended: Sendable {
        package var poison: [Entry] = []
        package var unsure: [Entry] = []
    }

    package struct Entry: Sendable {
        package var method: String
        package var params: JSONValue
        package var continuation: CheckedContinuation<JSONValue, any Error>
        /// Instances that died while it was in flight on them.
        package var crashes = 0
        /// The instance it was written to; nil while it waits for one.
        package var sentTo: Int?
        /// When it times out; nil for none (the owner keeps its own deadline).
        package var deadline: ContinuousClock.Instant?
        package var timeout: Duration = .zero
    }

    private let prefix: String
    private var entries: [String: Entry] = [:]
    private var issued = 0

    /// Ids are `prefix` and a number: unique per sender, as the protocol wants.
    package init(idPrefix prefix: String) {
        self.prefix = prefix
    }

    package var count: Int { entries.count }

    package mutating func nextID() -> String {
        issued += 1
        return prefix + String(issued)
    }

    package mutating func add(_ id: String, _ entry: Entry) {
        entries[id] = entry
    }

    /// The entry answered by a response, or timed out; nil when it is gone already.
    package mutating func remove(_ id: String) -> Entry? {
        entries.removeValue(forKey: id)
    }

    /// The requests no instance has, now marked as sent to `instance`.
    package mutating func unsent(to instance: Int) -> [(id: String, entry: Entry)] {
        var out: [(id: String, entry: Entry)] = []
        for (id, entry) in entries where entry.sentTo == nil {
            entries[id]?.sentTo = instance
            out.append((id, entry))
        }
        return out
    }

    /// Whether any request is in flight on `instance`.
    package func anySent(to instance: Int) -> Bool {
        entries.values.contains { $0.sentTo == instance }
    }

    /// Instance `instance` is gone: its requests wait for the next one; those sent once come
    /// back as unsure, and those it was the second crash for as poison.
    package mutating func instanceEnded(_ instance: Int, crashed: Bool) -> Ended {
        var ended = Ended()
        for (id, var entry) in entries where entry.sentTo == instance {
            entry.sentTo = nil
            if crashed { entry.crashes += 1 }
            if MethodName(rawValue: entry.method).isSentOnce {
                entries.removeValue(forKey: id)
                ended.unsure.append(entry)
            } else if entry.crashes >= 2 {
                entries.removeValue(forKey: id)
                ended.poison.append(entry)
            } else {
                entries[id] = entry
            }
        }
        return ended
    }

    /// The earliest deadline of any entry: when the owner must look again.
    package var nextDeadline: ContinuousClock.Instant? {
        entries.values.lazy.compactMap(\.deadline).min()
    }

    /// Removes and returns the entries whose deadline has passed at `now`.
    package mutating func expired(at now: ContinuousClock.Instant) -> [Entry] {
        var out: [Entry] = []
        for (id, entry) in entries {
            if let deadline = entry.deadline, deadline <= now {
                entries.removeValue(forKey: id)
                out.append(entry)
            }
        }
        return out
    }

    package mutating func removeAll() -> [Entry] {
        defer { entries.removeAll() }
        return Array(entries.values)
    }
}
