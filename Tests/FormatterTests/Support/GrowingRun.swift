import PiRelaySDK

/// A run revealed step by step as the supervisor would see it while pi streams: text and
/// thinking grow by a few scalars at a time (possibly splitting a cluster), tool calls appear
/// running and then finish one by one, notices arrive whole, and the last state is done.
struct GrowingRun {
    private(set) var states: [JSONValue] = []

    init(seed: UInt64, items count: Int) {
        var rng = SeededGenerator(seed: seed)
        var finished: [JSONValue] = []
        for index in 0..<count {
            switch rng.int(0...9) {
            case 0...4:
                let text = GeneratedMarkdown(seed: seed &* 31 &+ UInt64(index), targetLength: rng.int(100...1500)).text
                stream(text, kind: "text", before: finished, &rng)
                finished.append(RunFixture.text(text))
            case 5:
                let text = GeneratedMarkdown(seed: seed &* 37 &+ UInt64(index), targetLength: rng.int(50...600)).text
                stream(text, kind: "thinking", before: finished, &rng)
                finished.append(RunFixture.thinking(text))
            case 6...8:
                var calls: [JSONValue] = []
                for c in 0..<rng.int(1...4) {
                    let name = rng.pick(["bash", "read", "edit", "write", "grep", "ls", "web_search"])
                    calls.append(
                        RunFixture.call(
                            name, ["command": "make", "path": .string("Sources/f\(c).swift"), "pattern": "x", "content": "a\nb"],
                            id: "t\(index)-\(c)", done: false))
                    states.append(RunFixture.run(finished + [RunFixture.tools(calls)], done: false, stopReason: nil))
                }
                for c in calls.indices {
                    calls[c]["done"] = true
                    if rng.chance(0.3) {
                        calls[c]["isError"] = true
                        calls[c]["output"] = "Command exited with code 2"
                    }
                    states.append(RunFixture.run(finished + [RunFixture.tools(calls)], done: false, stopReason: nil))
                }
                finished.append(RunFixture.tools(calls))
            default:
                finished.append(RunFixture.notice(rng.pick(["retry", "compaction", "info"]), "attempt \(index)"))
                states.append(RunFixture.run(finished, done: false, stopReason: nil))
            }
        }
        states.append(RunFixture.run(finished, done: true, stopReason: rng.chance(0.3) ? "error" : "stop", errorMessage: "overloaded"))
    }

    private mutating func stream(_ text: String, kind: String, before: [JSONValue], _ rng: inout SeededGenerator) {
        let scalars = Array(text.unicodeScalars)
        var shown = 0
        while shown < scalars.count {
            shown = min(scalars.count, shown + rng.int(1...120))
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[0..<shown])
            let item: JSONValue = ["kind": .string(kind), "text": .string(String(view))]
            states.append(RunFixture.run(before + [item], done: false, stopReason: nil))
        }
    }
}
