import FoundationEssentials
import PiRelaySDK

/// A bounded ring of compact event previews per session, capped by count and by bytes, so a
/// session streaming hundreds of MB never holds more than a few MB of history.
package struct EventHistory {
    package struct Entry: Sendable {
        /// A streamed delta's text is kept as it is and its preview object built only when asked
        /// for: a dictionary for every pi line was most of what the history cost (issue 12 k).
        fileprivate enum Content: Sendable {
            case preview(JSONValue)
            case delta(String)
        }

        package var time: Date
        package var type: String
        fileprivate var content: Content
        package var bytes: Int

        package var preview: JSONValue {
            switch content {
            case .preview(let preview): return preview
            case .delta(let text): return ["delta": .string(text)]
            }
        }
    }

    package let maxEntries: Int
    package let maxBytes: Int
    package private(set) var entries: [Entry] = []
    private var head = 0
    package private(set) var totalBytes = 0

    package init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(1, maxEntries)
        self.maxBytes = max(1024, maxBytes)
    }

    package mutating func append(type: String, preview: JSONValue, at time: Date = Date()) {
        add(Entry(time: time, type: type, content: .preview(preview), bytes: Self.size(of: preview) + type.utf8.count + 16))
    }

    /// The same as a `["delta": text]` preview, without building it.
    package mutating func append(type: String, delta text: String, at time: Date = Date()) {
        // What `size(of:)` says of that preview.
        add(Entry(time: time, type: type, content: .delta(text), bytes: text.utf8.count + 13 + type.utf8.count + 16))
    }

    private mutating func add(_ entry: Entry) {
        entries.append(entry)
        totalBytes += entry.bytes
        while entries.count - head > maxEntries || (totalBytes > maxBytes && entries.count - head > 1) {
            totalBytes -= entries[head].bytes
            head += 1
        }
        // Compact lazily so appends stay O(1) amortised.
        if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    package var count: Int { entries.count - head }

    /// About the serialized size of `v` (escapes aside), without serializing it: this runs for
    /// every event a session sees.
    package static func size(of value: JSONValue) -> Int {
        switch value {
        case .null, .bool: return 5
        case .number: return 8
        case .string(let text): return text.utf8.count + 2
        case .array(let array): return array.reduce(2) { $0 + size(of: $1) + 1 }
        case .object(let object): return object.reduce(2) { $0 + $1.key.utf8.count + 4 + size(of: $1.value) }
        }
    }

    package func query(types: Set<String>?, since: Date?, limit: Int) -> [Entry] {
        var out: [Entry] = []
        for entry in entries[head...].reversed() {
            if let since, entry.time < since { break }
            if let types, !types.contains(entry.type) { continue }
            out.append(entry)
            if out.count >= limit { break }
        }
        return out.reversed()
    }
}
