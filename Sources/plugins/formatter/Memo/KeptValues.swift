/// Values kept within a bound on their number and one on their total cost; past either, the
/// least recently used goes first. A plain value: its owner keeps it behind a lock.
struct KeptValues<Value> {
    let maxEntries: Int
    let maxCost: Int

    struct Entry {
        let value: Value
        let cost: Int
        fileprivate(set) var used: UInt64
    }

    private(set) var entries: [Entry] = []
    private var clock: UInt64 = 0
    private var cost = 0

    init(maxEntries: Int, maxCost: Int) {
        self.maxEntries = maxEntries
        self.maxCost = maxCost
    }

    /// The value at `index`, now the most recently used.
    mutating func use(_ index: Int) -> Value {
        clock += 1
        entries[index].used = clock
        return entries[index].value
    }

    /// Keeps `value`, evicting the least recently used beyond the bounds. A value costing more
    /// than the bound alone is not kept.
    mutating func keep(_ value: Value, cost valueCost: Int) {
        guard valueCost <= maxCost else { return }
        clock += 1
        entries.append(Entry(value: value, cost: valueCost, used: clock))
        cost += valueCost
        while entries.count > maxEntries || cost > maxCost {
            guard let oldest = entries.indices.min(by: { entries[$0].used < entries[$1].used }) else { break }
            cost -= entries.remove(at: oldest).cost
        }
    }

    mutating func removeAll(where drop: (Value) -> Bool) {
        entries.removeAll { entry in
            guard drop(entry.value) else { return false }
            cost -= entry.cost
            return true
        }
    }
}
