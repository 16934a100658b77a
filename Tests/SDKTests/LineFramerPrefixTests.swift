import Testing

@testable import PiRelaySDK

/// `oversizedPrefix` is the first `prefixBytes` bytes of the skipped line however the line
/// arrived, so a reader can still tell its type (found by the line-framer fuzz target: the prefix
/// held only the bytes seen when the line went over the cap).
@Suite struct LineFramerPrefixTests {
    /// The prefix after the chunks, read once they are all fed.
    static func prefix(_ chunks: [[UInt8]], cap: Int) -> (events: [LineFramer.Event], prefix: [UInt8]) {
        var framer = LineFramer(maxLineBytes: cap)
        var events: [LineFramer.Event] = []
        for chunk in chunks { framer.feed(chunk) { events.append($0) } }
        return (events, framer.oversizedPrefix)
    }

    @Test func aLineThatGoesOverTheCapByteByByteKeepsItsWholePrefix() {
        let line = Array(#"{"type":"agent_end","messages":[]}"#.utf8)
        let (events, prefix) = Self.prefix(line.map { [$0] } + [[0x0A]], cap: 1)
        #expect(events == [.oversized(bytes: line.count)])
        #expect(prefix == line)
    }

    @Test func aShortStartThenTheRestInOneChunkKeepsTheWholePrefix() {
        let line = Array(#"{"type":"message_update","text":""#.utf8) + [UInt8](repeating: 0x61, count: 400)
        let (events, prefix) = Self.prefix([Array(line.prefix(3)), Array(line.dropFirst(3)) + [0x0A]], cap: 300)
        #expect(events == [.oversized(bytes: line.count)])
        #expect(prefix == Array(line.prefix(LineFramer.prefixBytes)))
    }

    @Test func theSkippedPartTopsUpAPrefixCutShortWhenSkippingBegan() {
        let line = [UInt8](repeating: 0x62, count: 600)
        let chunks = [Array(line.prefix(10)), Array(line[10..<20]), Array(line.dropFirst(20)), [0x0A]]
        let (events, prefix) = Self.prefix(chunks, cap: 15)
        #expect(events == [.oversized(bytes: 600)])
        #expect(prefix == Array(line.prefix(LineFramer.prefixBytes)))
    }
}
