import Testing

@testable import PiRelaySDK

/// Whole streams through `LineFramer` + `PiEventReader`, as the relay reads a pi child.
@Suite struct PiEventStreamTests {
    @Test func deltasAcrossManyLinesRebuildTheAnswer() throws {
        let deltas = PiStreamFixture.randomDeltas(count: 400, seed: 7)
        var stream: [UInt8] = []
        PiStreamFixture.answer(deltas: deltas) { stream += Array($0.utf8) + [0x0A] }

        let reader = PiEventReader()
        var framer = LineFramer()
        var rebuilt = ""
        var scalars = 0
        var blockText: String?
        var finalText: String?
        var events = 0
        var rng = SeededGenerator(seed: 3)
        var offset = 0
        // Uneven chunks, so lines straddle reads as they do on a pipe.
        while offset < stream.count {
            let n = min(stream.count - offset, Int.random(in: 1...5000, using: &rng))
            try stream[offset..<(offset + n)].withUnsafeBytes { chunk in
                try framer.feed(chunk) { framed in
                    guard case .line(let line) = framed else {
                        Issue.record("unexpected \(framed)")
                        return
                    }
                    let event = try reader.read(line)
                    events += 1
                    if let update = event.assistantMessageEvent {
                        if update.type == .textDelta, let delta = update.delta {
                            rebuilt += delta
                            scalars += delta.unicodeScalars.count
                        }
                        if update.type == .textEnd { blockText = update.content }
                    }
                    if event.type == .messageEnd { finalText = event.message?.text }
                }
            }
            offset += n
        }
        #expect(framer.finish() == nil)
        let expected = deltas.joined()
        #expect(events == deltas.count + 4)
        #expect(rebuilt == expected)
        #expect(scalars == expected.unicodeScalars.count)
        #expect(blockText == expected)
        #expect(finalText == expected)
    }
}

/// Inputs measured in megabytes. Serialized so the memory test sees only its own allocations.
@Suite(.serialized) struct PiEventLargeInputTests {
    @Test func twentyMegabyteMessageUpdate() throws {
        let body = String(repeating: "Lorem \"ipsum\" {dolor} [sit] \\amet\\ é😀\u{2028}\n", count: 10 << 20 / 48)
        let partial = PiStreamFixture.assistantMessage(content: #"[{"type":"text","text":"# + PiStreamFixture.quoted(body) + "}]")
        let line = PiStreamFixture.messageUpdate("text_delta", contentIndex: 0, fields: #","delta":"tail \u00e9""#, partial: partial)
        #expect(line.utf8.count > 20 << 20)
        var framer = LineFramer(maxLineBytes: 64 << 20)
        var events: [PiEvent] = []
        framer.feed(Array(line.utf8) + [0x0A]) { framed in
            if case .line(let bytes) = framed, let event = try? PiEventReader().read(bytes) { events.append(event) }
        }
        #expect(
            events == [
                PiEvent(
                    type: .messageUpdate, payload: .messageUpdate(PiAssistantMessageEvent(type: .textDelta, contentIndex: 0, delta: "tail é")))
            ])
    }

    @Test func twentyMegabyteToolOutputIsCapped() throws {
        let output = String(repeating: "drwxr-xr-x 3 root root 4096 \"dir\"\n", count: 20 << 20 / 34)
        let line =
            #"{"type":"tool_execution_end","toolCallId":"t","toolName":"bash","result":{"content":[{"type":"text","text":"#
            + PiStreamFixture.quoted(output) + #"}],"details":{"exitCode":0}},"isError":false}"#
        let execution = try #require(try PiEventReader().read(line).toolExecution)
        #expect(execution.resultText == String(output.utf8.prefix(4000))!)
        #expect(execution.resultTextTruncated)
        #expect(execution.exitCode == 0)
        #expect(execution.isError == false)
    }

    @Test(.enabled(if: ResidentMemory.current() != nil))
    func fiftyMegabytesOfUpdatesKeepMemoryFlat() throws {
        let reader = PiEventReader()
        var framer = LineFramer()
        var fed = 0
        var deltas = 0
        var baseline: Int?
        var round: UInt64 = 0
        // Answers of 1500 deltas: lines grow to ~65 KB and each answer is ~50 MB of stream. Lines
        // are built and fed one at a time, in pipe-sized chunks, so only the reader can hold memory.
        while fed < 56 << 20 {
            round += 1
            try PiStreamFixture.answer(deltas: PiStreamFixture.randomDeltas(count: 1500, seed: round)) { line in
                let bytes = Array(line.utf8) + [0x0A]
                var offset = 0
                while offset < bytes.count {
                    let n = min(64 << 10, bytes.count - offset)
                    try bytes[offset..<(offset + n)].withUnsafeBytes { piece in
                        try framer.feed(piece) { framed in
                            guard case .line(let line) = framed else { return }
                            if try reader.read(line).assistantMessageEvent?.type == .textDelta { deltas += 1 }
                        }
                    }
                    offset += n
                }
                fed += bytes.count
                // The first megabytes warm up the allocator; growth is measured from there.
                if baseline == nil, fed > 4 << 20 { baseline = ResidentMemory.current() }
            }
        }
        let grown = (ResidentMemory.current() ?? 0) - (baseline ?? 0)
        #expect(fed >= 50 << 20)
        #expect(deltas == 1500 * Int(round))
        #expect(grown < 40 << 20, "RSS grew by \(grown >> 20) MiB over \(fed >> 20) MiB of input")
    }
}
