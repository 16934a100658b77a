import Testing

@testable import PiRelaySDK

/// A reader's chunks cut lines anywhere: each line comes whole, an over-long one is skipped, and
/// what is left without its LF at the end of input is reported, never handed over as a line.
@Suite struct ChunkedLinesTests {
    @Test func linesCutAcrossChunksComeWholeAndATornTailIsReported() {
        let lines = ChunkedLines(maxLineBytes: 8)
        var heard: [LineFramer.Event] = []
        for chunk in ["{\"a\":", "1}\n{\"b\"", ":2}\n0123456789", "\n{\"c"] {
            Array(chunk.utf8).withUnsafeBytes { lines.feed($0) { heard.append($0) } }
        }
        lines.finish { heard.append($0) }
        #expect(
            heard == [
                .line(Array("{\"a\":1}".utf8)), .line(Array("{\"b\":2}".utf8)), .oversized(bytes: 10), .unterminatedTail(bytes: 3),
            ])
    }

    @Test func anEndAfterWholeLinesReportsNothing() {
        let lines = ChunkedLines(maxLineBytes: 64)
        var heard: [LineFramer.Event] = []
        Array("{}\n".utf8).withUnsafeBytes { lines.feed($0) { heard.append($0) } }
        lines.finish { heard.append($0) }
        #expect(heard == [.line(Array("{}".utf8))])
    }
}
