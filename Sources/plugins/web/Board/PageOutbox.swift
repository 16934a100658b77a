import Synchronization

/// What one open page has yet to be sent. A page that reads slowly (a phone's tab in the
/// background, a slow `ssh -L`) gets each run's newest view rather than every view in between:
/// a live view carries the whole answer so far, and a buffer of a thousand of them held hundreds
/// of megabytes for one stalled page. Past `maxBytes` the oldest messages go, as a page too slow
/// to read its own session loses what it did not take; it never holds up the relay.
final class PageOutbox: Sendable {
    static let maxBytes = 4 << 20
    static let maxCount = 1000

    private struct Queue {
        var items: [(key: String?, text: String)] = []
        var bytes = 0
    }

    private let queue = Mutex(Queue())
    /// One tick per batch put: the writer drains the queue at each.
    let ticks: AsyncStream<Void>
    private let tick: AsyncStream<Void>.Continuation

    init() {
        (ticks, tick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Puts `text` last, or in the place of the waiting message with the same `key` (a run's
    /// live view replaces its older one still waiting).
    func put(_ text: String, key: String? = nil) {
        queue.withLock { queue in
            if let key, let index = queue.items.firstIndex(where: { $0.key == key }) {
                queue.bytes += text.utf8.count - queue.items[index].text.utf8.count
                queue.items[index].text = text
            } else {
                queue.items.append((key, text))
                queue.bytes += text.utf8.count
            }
            while queue.items.count > 1, queue.bytes > Self.maxBytes || queue.items.count > Self.maxCount {
                queue.bytes -= queue.items.removeFirst().text.utf8.count
            }
        }
        tick.yield()
    }

    /// The oldest message waiting, taken; nil when none is.
    func take() -> String? {
        queue.withLock { queue in
            guard !queue.items.isEmpty else { return nil }
            let first = queue.items.removeFirst()
            queue.bytes -= first.text.utf8.count
            return first.text
        }
    }

    /// The page closed: the writer's `ticks` end.
    func finish() { tick.finish() }

    /// What waits, for tests.
    var waiting: (count: Int, bytes: Int) { queue.withLock { ($0.items.count, $0.bytes) } }
}
