import PiRelaySDK
import Testing

@testable import WebPlugin

/// A page that reads slowly holds a bounded outbox: each run's newest view, not every view.
@Suite struct PageOutboxTests {
    /// A stalled page while a long answer streams: a live view carries the whole answer so far,
    /// and a thousand of them were kept, hundreds of megabytes for one page.
    @Test func aStalledPageKeepsEachRunsNewestViewOnly() {
        let board = Board()
        let page = board.open()
        board.watch(page.id, session: "s1")
        let answer = String(repeating: "word ", count: 20_000)
        for rev in 1...300 { board.live(session: "s1", run: "r1", rev: rev, html: answer + "\(rev)") }
        board.live(session: "s1", run: "r2", rev: 1, html: "the other run")
        let waiting = page.messages.waiting
        #expect(waiting.count <= 5, "\(waiting)")
        #expect(waiting.bytes < 2 * answer.utf8.count + 10_000, "\(waiting)")
        var texts: [String] = []
        while let text = page.messages.take() { texts.append(text) }
        let lives = texts.compactMap { try? JSONValue.parse($0) }.filter { $0["type"] == "live" }
        #expect(lives.map { $0["runId"]?.stringValue ?? "" } == ["r1", "r2"], "\(lives.count)")
        #expect(lives.first?["html"]?.stringValue?.hasSuffix("300") == true, "the newest view of r1")
    }

    /// Past its bound the oldest messages go, the newest stay: never more than the bound held.
    @Test func theOutboxIsBoundedByBytes() {
        let outbox = PageOutbox()
        let big = String(repeating: "x", count: 1 << 20)
        for n in 0..<10 { outbox.put(big + "\(n)") }
        #expect(outbox.waiting.bytes <= PageOutbox.maxBytes)
        #expect(outbox.take()?.hasSuffix("7") == true, "the three newest of ten 1 MiB messages are kept")
        for n in 0..<(PageOutbox.maxCount + 50) { outbox.put("m\(n)") }
        #expect(outbox.waiting.count == PageOutbox.maxCount)
    }
}
