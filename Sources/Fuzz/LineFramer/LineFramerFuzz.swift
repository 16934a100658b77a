import FuzzDriver
import PiRelaySDK

/// Feeds a stream to `LineFramer` in chunks the fuzzer chooses, with a small line cap, and checks
/// every event against `LineFramerModel`: how a stream is chunked must never change its lines.
enum LineFramerFuzz {
    static func test(_ input: FuzzInput) {
        var input = input
        let cap = input.int(in: 1...300)
        // Chunk lengths come from the next bytes; 0 means "the rest in one go".
        var lengths: [Int] = []
        for _ in 0..<Int(input.byte() % 16) { lengths.append(Int(input.byte())) }
        let stream = input.rest()

        var framer = LineFramer(maxLineBytes: cap)
        var events: [LineFramerModel.Event] = []
        // `oversizedPrefix` can only be read between feeds, so it belongs to the last oversize
        // line of a chunk (the supervisor reads it the same way), unless the chunk ends in a line
        // already over the cap, whose head it then holds.
        var prefixes: [(event: Int, prefix: [UInt8])] = []
        var start = 0
        var k = 0
        while start < stream.count {
            let wanted = lengths.isEmpty ? stream.count : lengths[k % lengths.count]
            k += 1
            let end = wanted == 0 ? stream.count : min(stream.count, start + wanted)
            var lastOversized: Int?
            framer.feed(Array(stream[start..<end])) { event in
                switch event {
                case .line(let bytes): events.append(.line(bytes))
                case .oversized(let n):
                    lastOversized = events.count
                    events.append(.oversized(bytes: n))
                case .unterminatedTail(let n): events.append(.tail(n))
                }
            }
            let open = end - (stream[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)
            if let lastOversized, open <= cap { prefixes.append((lastOversized, framer.oversizedPrefix)) }
            FuzzDriver.require(framer.bufferedBytes <= cap, "the framer buffers \(framer.bufferedBytes) bytes, cap \(cap)")
            start = end
        }
        if let tail = framer.finish() { events.append(.tail(tail)) }

        let expected = LineFramerModel.events(stream, cap: cap)
        FuzzDriver.require(
            events == expected.map(\.event),
            "chunks \(lengths), cap \(cap): got \(events), expected \(expected.map(\.event))")
        for (index, prefix) in prefixes {
            FuzzDriver.require(
                prefix == expected[index].prefix,
                "chunks \(lengths), cap \(cap): oversize line \(index) has a \(prefix.count)-byte prefix, expected \(expected[index].prefix.count) bytes"
            )
        }
    }
}
