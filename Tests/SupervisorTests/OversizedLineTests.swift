import PiRelaySDK
import Testing

@testable import Supervisor

/// A line over the cap is skipped, but its type is still known: an oversize agent_end must
/// still end the run.
@Suite struct OversizedLineTests {
    @Test func namesTheTypeFromThePrefix() {
        #expect(OversizedLine.eventType(Array(#"{"type":"agent_end","messages":[{"role":"user"#.utf8)) == "agent_end")
        #expect(OversizedLine.eventType(Array(#"{ "type" : "message_update","message":"#.utf8)) == "message_update")
        #expect(OversizedLine.eventType(Array(#"{"messages":[],"type":"agent_end"}"#.utf8)) == nil)
        #expect(OversizedLine.eventType(Array("garbage".utf8)) == nil)
    }

    @Test func framerKeepsThePrefixOfASkippedLine() {
        var f = LineFramer(maxLineBytes: 1000)
        let big = Array(#"{"type":"agent_end","messages":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000) + Array("\"}\n".utf8)
        var skipped: [Int] = []
        // Fed in small pieces, so the cap is crossed while buffering.
        for start in stride(from: 0, to: big.count, by: 300) {
            f.feed(Array(big[start..<min(start + 300, big.count)])) { if case .oversized(let n) = $0 { skipped.append(n) } }
        }
        #expect(skipped == [big.count - 1])
        #expect(OversizedLine.eventType(f.oversizedPrefix) == "agent_end")
        var g = LineFramer(maxLineBytes: 1000)
        g.feed(big) { _ in }
        #expect(OversizedLine.eventType(g.oversizedPrefix) == "agent_end")
    }
}
