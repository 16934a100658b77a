import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Values kept by the text they were made from, for texts that grow at the end (a live view's
/// answer so far): a later text finds the value of the longest kept text it starts with, and
/// goes on from there. Bounded by entries and by the values' cost; the least recently used goes
/// first. A memo, never a source of truth: whoever uses it must come out the same without it.
final class PrefixMemo<Value: Sendable>: Sendable {
    let maxEntries: Int
    let maxCost: Int

    private struct Entry {
        let text: String
        let value: Value
        let cost: Int
        var used: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var clock: UInt64 = 0
        var cost = 0
    }

    private let state = Mutex(State())

    init(maxEntries: Int, maxCost: Int) {
        self.maxEntries = maxEntries
        self.maxCost = maxCost
    }

    /// How many entries are kept, for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// The longest kept text that `text` starts with, and its value.
    func longest(prefixOf text: String) -> (text: String, value: Value)? {
        state.withLock { state in
            var best: Int?
            for (index, entry) in state.entries.enumerated()
            where entry.text.utf8.count > (best.map { state.entries[$0].text.utf8.count } ?? -1) && Self.starts(text, with: entry.text) {
                best = index
            }
            guard let best else { return nil }
            state.clock += 1
            state.entries[best].used = state.clock
            return (state.entries[best].text, state.entries[best].value)
        }
    }

    /// Keeps `value` for `text` in place of the shorter texts it goes on from (their text has
    /// moved on), evicting the least recently used beyond the bounds. A value costing more than
    /// the bound alone is not kept.
    func remember(_ text: String, _ value: Value, cost: Int) {
        guard cost <= maxCost else { return }
        state.withLock { state in
            state.entries.removeAll { entry in
                guard Self.starts(text, with: entry.text) else { return false }
                state.cost -= entry.cost
                return true
            }
            state.clock += 1
            state.entries.append(Entry(text: text, value: value, cost: cost, used: state.clock))
            state.cost += cost
            while state.entries.count > maxEntries || state.cost > maxCost {
                guard let oldest = state.entries.indices.min(by: { state.entries[$0].used < state.entries[$1].used }) else { break }
                state.cost -= state.entries.remove(at: oldest).cost
            }
        }
    }

    /// `text.hasPrefix(prefix)` by bytes, with `memcmp` where both are contiguous.
    private static func starts(_ text: String, with prefix: String) -> Bool {
        guard prefix.utf8.count <= text.utf8.count else { return false }
        let fast = text.utf8.withContiguousStorageIfAvailable { whole in
            prefix.utf8.withContiguousStorageIfAvailable { start in
                start.isEmpty || memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0
            }
        }
        if let fast, let answer = fast { return answer }
        return text.utf8.starts(with: prefix.utf8)
    }
}
