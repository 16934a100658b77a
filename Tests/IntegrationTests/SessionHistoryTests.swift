import Foundation
import PiRelaySDK
import Testing

/// `history`: a bounded ring per session (sessions.historyEvents / historyBytes), filtered by
/// type, time and count.
@Suite struct SessionHistoryTests {
    @Test func theRingKeepsTheNewestEventsUpToHistoryEvents() async throws {
        try await SessionHome.with(SessionConfig(historyEvents: 25)) { s in
            try await s.start()
            let id = try await s.new(name: "h")
            try await s.prompt(id, "!scenario text 300")
            let kept = try await s.history(id)
            #expect(kept.count == 25, "\(kept.count) events")
            #expect(kept.last?["type"] == "run_finished", "the newest are kept: \(kept.last?.serialized() ?? "")")
            #expect(!kept.contains { $0["type"] == "agent_start" }, "the oldest were dropped")
            let times = kept.compactMap { SessionHome.date($0["time"]) }
            #expect(times.count == 25 && times == times.sorted(), "oldest first")
        }
    }

    @Test func theRingStaysUnderHistoryBytes() async throws {
        try await SessionHome.with(SessionConfig(historyBytes: 4096)) { s in
            try await s.start()
            let id = try await s.new(name: "b")
            try await s.prompt(id, "!scenario text 600")
            let kept = try await s.history(id)
            // Each entry is counted as its preview plus its type; the time printed with it is not.
            let bytes = kept.reduce(0) { total, e in
                var preview = e
                preview["time"] = nil
                return total + preview.serializedBytes().count
            }
            #expect(bytes <= 4096 + 16 * kept.count, "\(bytes) bytes in \(kept.count) events")
            #expect(kept.count > 20 && kept.count < 200, "\(kept.count) events")
            #expect(kept.last?["type"] == "run_finished")
        }
    }

    @Test func historyFiltersByTypeSinceAndLimit() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "f")
            try await s.prompt(id, "one")
            let mark = Date()
            try await s.prompt(id, "two")

            let recent = try await s.history(id, "--since", SessionHome.iso(mark))
            #expect(recent.filter { $0["type"] == "run_finished" }.count == 1, "\(recent)")
            #expect(recent.allSatisfy { (SessionHome.date($0["time"]) ?? .distantPast) >= mark.addingTimeInterval(-0.001) })
            #expect(recent.contains { $0["type"] == "text_delta" && $0["delta"]?.stringValue?.contains("two") == true })
            #expect(!recent.contains { $0["delta"]?.stringValue?.contains("one") == true }, "run one is before the mark")
            #expect(try await s.history(id, "--since", "10m").filter { $0["type"] == "run_finished" }.count == 2)

            let typed = try await s.history(id, "--type", "run_finished", "--type", "message_end")
            #expect(Set(typed.compactMap { $0["type"]?.stringValue }) == ["run_finished", "message_end"])
            #expect(typed.filter { $0["type"] == "message_end" && $0["role"] == "assistant" }.count == 2)
            #expect(typed.last?["type"] == "run_finished" && typed.last?["stopReason"] == "stop")

            let limited = try await s.json("history", "f", "--limit", "3").arrayValue ?? []
            let all = try await s.history(id)
            #expect(limited == Array(all.suffix(3)), "the newest three")

            // --max-bytes: the newest events whose JSON fits, the newest one whatever its size.
            let capped = try await s.json("history", "f", "--max-bytes", "400").arrayValue ?? []
            #expect(!capped.isEmpty && capped.count < all.count && capped == Array(all.suffix(capped.count)), "\(capped.count) of \(all.count)")
            #expect(JSONValue.array(capped).serializedBytes().count <= 400 + capped.count)
            let one = try await s.json("history", "f", "--max-bytes", "1").arrayValue ?? []
            #expect(one == Array(all.suffix(1)))
            let zero = try await s.run("history", "f", "--max-bytes", "0")
            #expect(zero.status == 1 && zero.stderr.contains("--max-bytes"), "no bytes is an error, not no cap: \(zero)")

            // Plain: one line per event, its time of day first.
            let plain = try await s.plain("history", "f", "--type", "run_finished", "--limit", "1")
            let line = try #require(plain.split(separator: "\n").first.map(String.init))
            #expect(plain.split(separator: "\n").count == 1)
            let runID = try #require(typed.last?["runId"]?.stringValue, "run_finished names its run: \(typed)")
            #expect(line.dropFirst(12) == " run_finished {\"runId\":\"\(runID)\",\"stopReason\":\"stop\"}", "\(line)")
            #expect(line.prefix(12).allSatisfy { $0.isNumber || $0 == ":" || $0 == "." }, "\(line)")

            let bad = try await s.run("history", "f", "--since", "yesterday")
            #expect(bad.status == 1, "an unreadable --since is an error, not no filter: \(bad)")
            #expect(bad.stderr.contains("--since"), "\(bad)")
        }
    }

    /// `history --raw` (seed 004's bridge): a message's end and a tool call's start and end come
    /// whole, as pi wrote them (its full text, a tool's whole result), in place of their
    /// previews and in time order with the rest; spilled to the state folder (owner-only) and
    /// gone when the session ends.
    @Test func rawHistoryHasTheWholePayloads() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "r")
            try await s.prompt(id, "!scenario tools")
            let compact = try await s.history(id, "--type", "tool_execution_end")
            #expect(!compact.isEmpty && compact.allSatisfy { $0["result"] == nil && $0["event"] == nil }, "previews: \(compact)")
            let raw = try await s.history(id, "--raw")
            let ends = raw.filter { $0["type"] == "tool_execution_end" }
            #expect(ends.count == compact.count, "\(ends.count) whole of \(compact.count)")
            #expect(ends.allSatisfy { $0["event"]?["result"] != nil && $0["event"]?["type"] == "tool_execution_end" }, "\(ends.first ?? [:])")
            let message = try #require(raw.last { $0["type"] == "message_end" })
            #expect(message["event"]?["message"]?["content"] != nil, "the message whole: \(message)")
            #expect(raw.contains { $0["type"] == "run_finished" } && raw.contains { $0["type"] == "text_delta" }, "the rest as previews")
            let times = raw.compactMap { SessionHome.date($0["time"]) }
            #expect(times == times.sorted(), "in time order")
            let onlyStarts = try await s.history(id, "--raw", "--type", "tool_execution_start")
            #expect(!onlyStarts.isEmpty && onlyStarts.allSatisfy { $0["type"] == "tool_execution_start" && $0["event"]?["args"] != nil })
            let plain = try await s.plain("history", "r", "--raw", "--type", "message_end", "--limit", "1")
            #expect(try JSONValue.parse(plain.trimmingCharacters(in: .whitespacesAndNewlines))["event"] != nil, "one JSON line: \(plain)")

            let spill = s.home.path + "/state/history/\(id).jsonl"
            var info = stat()
            #expect(stat(spill, &info) == 0 && info.st_mode & 0o777 == 0o600, "owner-only")
            _ = try await s.run("end", "r")
            #expect(!FileManager.default.fileExists(atPath: spill), "gone with the session")
        }
    }
}
