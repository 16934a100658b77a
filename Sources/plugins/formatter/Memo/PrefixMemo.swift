import Synchronization

/// Values kept by the text they were made from, for texts that grow at the end (a live view's
/// answer so far): a later text finds the value of the longest kept text it starts with, and
/// goes on from there. Bounded by entries and by the values' cost; the least recently used goes
/// first. A memo, never a source of truth: whoever uses it must come out the same without it.
final class PrefixMemo<Value: Sendable>: Sendable {
    private let state: Mutex<KeptValues<(text: String, lead: TextLead, value: Value)>>

    init(maxEntries: Int, maxCost: Int) {
        state = Mutex(KeptValues(maxEntries: maxEntries, maxCost: maxCost))
    }

    /// How many entries are kept, for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// The longest kept text that `text` starts with, and its value.
    func longest(prefixOf text: String) -> (text: String, value: Value)? {
        let lead = TextLead(text)
        return state.withLock { kept in
            var best: (index: Int, length: Int)?
            // By index, not by element: an entry is read only when its lead may match.
            for index in kept.entries.indices where kept.entries[index].value.lead.mayStart(lead) {
                let length = kept.entries[index].value.text.utf8.count
                if length > (best?.length ?? -1) && ByteSearch.starts(text, with: kept.entries[index].value.text) { best = (index, length) }
            }
            return best.map { kept.use($0.index) }.map { ($0.text, $0.value) }
        }
    }

    /// Keeps `value` for `text` in place of the shorter texts it goes on from (their text has
    /// moved on), evicting the least recently used beyond the bounds. A value costing more than
    /// the bound alone is not kept.
    func remember(_ text: String, _ value: Value, cost: Int) {
        state.withLock { kept in
            guard cost <= kept.maxCost else { return }
            let lead = TextLead(text)
            kept.removeAll { $0.lead.mayStart(lead) && ByteSearch.starts(text, with: $0.text) }
            kept.keep((text, lead, value), cost: cost)
        }
    }
}
