import Testing

@testable import PiRelaySDK

@Suite struct LineFramerTests {
    /// Everything a framer reports for one stream, including what `finish()` returns.
    struct Transcript: Equatable {
        var events: [LineFramer.Event] = []
        var tail: Int?
    }

    static func frame(_ chunks: [[UInt8]], maxLineBytes: Int = 8 << 20) -> Transcript {
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        var transcript = Transcript()
        for chunk in chunks {
            framer.feed(chunk) { transcript.events.append($0) }
        }
        transcript.tail = framer.finish()
        return transcript
    }

    /// The framing rules written the obvious way, over the whole stream at once: split on LF only,
    /// drop one trailing CR, report lines whose length (CR included) exceeds the cap.
    static func reference(_ stream: [UInt8], maxLineBytes: Int) -> Transcript {
        var transcript = Transcript()
        var pieces = stream.split(separator: 0x0A, omittingEmptySubsequences: false)
        let tail = pieces.removeLast()
        for piece in pieces {
            if piece.count > maxLineBytes {
                transcript.events.append(.oversized(bytes: piece.count))
            } else {
                transcript.events.append(.line(Array(piece.last == 0x0D ? piece.dropLast() : piece)))
            }
        }
        transcript.tail = tail.isEmpty ? nil : tail.count
        return transcript
    }

    static func lines(_ transcript: Transcript) -> [String] {
        transcript.events.compactMap { if case .line(let l) = $0 { String(decoding: l, as: UTF8.self) } else { nil } }
    }

    @Test func splitsOnLineFeedOnly() {
        // CR alone, VT, FF, NEL (C2 85), U+2028 and U+2029 are all content.
        let stream = Array("a\rb\u{0B}c\u{0C}d\u{85}e\u{2028}f\u{2029}g\nsecond\n".utf8)
        #expect(Self.lines(Self.frame([stream])) == ["a\rb\u{0B}c\u{0C}d\u{85}e\u{2028}f\u{2029}g", "second"])
    }

    @Test func stripsOneTrailingCarriageReturn() {
        let stream = Array("crlf\r\ntwo\r\r\n\r\n\n".utf8)
        #expect(Self.lines(Self.frame([stream])) == ["crlf", "two\r", "", ""])
    }

    @Test func keepsRawLineSeparatorInsideJSON() throws {
        let stream = Array("{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_delta\",\"delta\":\"a\u{2028}b\"}}\n".utf8)
        let transcript = Self.frame([stream])
        #expect(transcript.events.count == 1)
        guard case .line(let line) = transcript.events[0] else {
            Issue.record("expected a line")
            return
        }
        #expect(try PiEventReader().read(line).assistantMessageEvent?.delta == "a\u{2028}b")
    }

    @Test func skipsOversizedLines() {
        let stream = Array("0123456789\nok\n12345678\nABCDEFGHIJKLMNOPQRSTUVWXYZ\nend\n".utf8)
        let transcript = Self.frame([stream], maxLineBytes: 8)
        #expect(
            transcript.events == [
                .oversized(bytes: 10), .line(Array("ok".utf8)), .line(Array("12345678".utf8)), .oversized(bytes: 26),
                .line(Array("end".utf8)),
            ])
        #expect(transcript.tail == nil)
    }

    @Test func oversizedLineSpanningManyChunksIsNotBuffered() {
        var framer = LineFramer(maxLineBytes: 100)
        var events: [LineFramer.Event] = []
        for _ in 0..<50 {
            framer.feed([UInt8](repeating: 0x61, count: 64)) { events.append($0) }
            #expect(framer.bufferedBytes <= 100)
        }
        framer.feed(Array("\nnext\n".utf8)) { events.append($0) }
        #expect(events == [.oversized(bytes: 3200), .line(Array("next".utf8))])
    }

    @Test func reportsUnterminatedTailAndResets() {
        var framer = LineFramer()
        var events: [LineFramer.Event] = []
        framer.feed(Array("one\ntorn".utf8)) { events.append($0) }
        #expect(events == [.line(Array("one".utf8))])
        #expect(framer.bufferedBytes == 4)
        #expect(framer.finish() == 4)
        #expect(framer.finish() == nil)
        framer.feed(Array("fresh\n".utf8)) { events.append($0) }
        #expect(events.last == .line(Array("fresh".utf8)))
    }

    static let boundaryStream: [UInt8] = Array(
        "{\"type\":\"agent_start\"}\r\n\nlong-line-over-the-cap-of-twenty\n\u{2028}é😀\r\r\nx\r\nend-of-stream-too-long-tail".utf8)

    @Test func agreesWithTheReferenceForEverySingleSplit() {
        let stream = Self.boundaryStream
        for cap in [20, 8 << 20] {
            let expected = Self.reference(stream, maxLineBytes: cap)
            #expect(Self.frame([stream], maxLineBytes: cap) == expected)
            for i in 0...stream.count {
                let chunks = [Array(stream[..<i]), Array(stream[i...])]
                #expect(Self.frame(chunks, maxLineBytes: cap) == expected, "split at \(i), cap \(cap)")
            }
        }
    }

    @Test func agreesWithTheReferenceForEveryPairOfSplits() {
        let stream = Self.boundaryStream
        let expected = Self.reference(stream, maxLineBytes: 20)
        for i in 0...stream.count {
            for j in i...stream.count {
                let chunks = [Array(stream[..<i]), Array(stream[i..<j]), Array(stream[j...])]
                let transcript = Self.frame(chunks, maxLineBytes: 20)
                if transcript != expected {
                    Issue.record("splits at \(i) and \(j) differ: \(transcript)")
                    return
                }
            }
        }
    }

    @Test func agreesWithTheReferenceByteByByte() {
        let stream = Self.boundaryStream
        for cap in [1, 5, 20, 8 << 20] {
            #expect(Self.frame(stream.map { [$0] }, maxLineBytes: cap) == Self.reference(stream, maxLineBytes: cap), "cap \(cap)")
        }
    }
}
