import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, prompts: through the real daemon, its real plugins, the fake pi and the fake
/// Discord, a DM prompt streams into one message edited in place and ends as the final chunks;
/// prompts from the terminal are shown in Discord, Discord's own prompts are not echoed back.
@Suite struct StackPromptTests {
    /// A long answer in a DM: the live message appears while pi still streams, is edited as the
    /// text grows (at most about once every 800 ms), and becomes the first final chunk; the rest
    /// follow as new messages. Every
    /// message fits Discord's 2000 characters, none is posted twice, and together they are the
    /// whole answer.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func dmPromptStreamsIntoOneEditedMessageThenFinalChunks() async throws {
        try await StackHome.with { stack in
            // Slow enough deltas that the 400 ms live updates catch the answer half written.
            try await stack.start(environment: ["FAKE_PI_DELTA_MS": "15"])
            let dm = try await stack.dmChannel()
            let made = try await stack.reply(to: try await stack.slash("new", ["cwd": .string(stack.workspace), "name": "dm"]))
            #expect(made.text.contains("Started dm"), "\(made)")
            try await stack.waitForState("dm", "idle")

            let before = try await stack.fake.cursor
            let prompt = try await stack.dm("!scenario text 600")
            let live = try #require(try await stack.waitForBotMessage(in: dm, containing: "the", since: before).first)
            let liveID = try #require(live["id"]?.stringValue)
            let busy = try #require(try await stack.session(named: "dm"))
            #expect(busy["state"] == "busy", "the first live message came while pi was still answering: \(busy)")

            try await stack.waitForState("dm", "idle", timeout: .seconds(120))
            let answer = try #require(try await stack.json("last", "dm")["text"]?.stringValue)
            let words = Self.words(answer)
            #expect(words.count == 600, "\(answer.prefix(200))")
            // The final is in when the bot's messages after the prompt hold the whole answer.
            let shown = try await waitFor("the whole answer is shown in the DM", timeout: .seconds(90)) { () -> [JSONValue]? in
                let after = try await stack.botMessages(dm).filter {
                    (Int($0["id"]?.stringValue ?? "") ?? 0) > (Int(prompt["id"]?.stringValue ?? "") ?? 0)
                }
                return Self.words(after.map { Self.body($0["content"]?.stringValue ?? "") }.joined(separator: " ")) == words ? after : nil
            }
            #expect(shown.count >= 2, "600 words take more than one message: \(shown.count)")
            #expect(shown.first?["id"]?.stringValue == liveID, "the live message became the first chunk")
            let first = try await stack.fake.message(liveID)
            #expect((first["edit_count"]?.intValue ?? 0) >= 2, "the live message was edited in place: \(first["edit_count"] ?? nil)")
            // Coalesced: the daemon sends a view every 400 ms, the plugin edits a message at most
            // about every 800 ms (the last edit, the final's, may follow sooner).
            let edits = try await stack.fake.get("/requests?method=PATCH&path=/messages/\(liveID)&since=\(before)")["requests"]?.arrayValue ?? []
            let editTimes = edits.compactMap { $0["time"]?.doubleValue }
            let gaps = zip(editTimes, editTimes.dropFirst()).map { $1 - $0 }.dropLast()
            #expect(gaps.count >= 2 && gaps.allSatisfy { $0 >= 0.6 }, "edits of the live message came closer than 800 ms: \(gaps)")
            let versions = (first["history"]?.arrayValue ?? []).compactMap { $0["content"]?.stringValue }
            #expect(
                versions.contains { !$0.isEmpty && $0.count < (first["content"]?.stringValue?.count ?? 0) },
                "an earlier version showed less of the answer")
            for (i, m) in shown.enumerated() {
                let text = m["content"]?.stringValue ?? ""
                #expect(text.count <= 2000, "message \(i + 1) has \(text.count) characters")
                #expect(Self.unpinged(text).hasPrefix("[\(i + 1)/\(shown.count)]"), "message \(i + 1) is numbered: \(text.prefix(40))")
            }
            #expect(Set(shown.compactMap { $0["content"]?.stringValue }).count == shown.count, "no message is posted twice")
            let deleted = try await stack.fake.get("/messages?channel_id=\(dm)&author=bot&include_deleted=1")["messages"]?.arrayValue ?? []
            #expect(deleted.count == (try await stack.botMessages(dm)).count, "the live view posted nothing it had to delete")
            #expect(stack.piPrompts(containing: "!scenario text 600").count == 1)
            #expect(
                try await stack.botMessages(dm).allSatisfy { $0["content"]?.stringValue?.contains("▶ USER") != true },
                "a prompt from this DM is not echoed back into it")
        }
    }

    /// A prompt sent from the terminal shows in the watching DM as "▶ USER: …" before its answer.
    /// A prompt written in a DM is echoed to the other chat watching the session (bob's DM), and
    /// never back into the DM it came from.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func terminalPromptsAreEchoedAndDiscordPromptsOnlyToOtherChats() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let alice = try await stack.dmChannel(.alice)
            let bob = try await stack.dmChannel(.bob)
            _ = try await stack.newSession("shared")
            for user in [StackUser.alice, .bob] {
                let used = try await stack.reply(to: try await stack.slash("use", ["session": "shared"], from: user))
                #expect(used.text.contains("Watching shared"), "\(used)")
            }

            let sent = try await stack.json("send", "shared", "hello from the terminal")
            #expect(sent["status"] == "prompted", "\(sent)")
            for channel in [alice, bob] {
                try await stack.waitForBotMessage(in: channel, containing: "▶ USER: hello from the terminal")
                try await stack.waitForBotMessage(in: channel, containing: "Echo: hello from the terminal")
            }
            try await stack.waitForState("shared", "idle")

            try await stack.dm("hello from alice's DM", from: .alice)
            try await stack.waitForBotMessage(in: alice, containing: "Echo: hello from alice's DM")
            try await stack.waitForBotMessage(in: bob, containing: "▶ USER: hello from alice's DM")
            try await stack.waitForBotMessage(in: bob, containing: "Echo: hello from alice's DM")
            try await stack.waitForState("shared", "idle")

            let aliceSees = try await stack.botMessages(alice).compactMap { $0["content"]?.stringValue }
            #expect(aliceSees.filter { $0.contains("▶ USER: hello from the terminal") }.count == 1, "\(aliceSees)")
            #expect(!aliceSees.contains { $0.contains("▶ USER: hello from alice") }, "alice's own prompt came back to her: \(aliceSees)")
            #expect(aliceSees.filter { $0.contains("Echo: hello from alice's DM") }.count == 1, "\(aliceSees)")
            let bobSees = try await stack.botMessages(bob).compactMap { $0["content"]?.stringValue }
            #expect(bobSees.filter { $0.contains("▶ USER: hello from alice's DM") }.count == 1, "\(bobSees)")
            #expect(stack.piPrompts(containing: "hello from alice's DM").count == 1)
            #expect(stack.piPrompts(containing: "hello from the terminal").count == 1)
        }
    }

    /// "bot is typing…" while the agent works: the first indicator comes right after the prompt,
    /// it is renewed before Discord's 10 s run out for as long as the run lasts, and once the
    /// final is shown the bot stops typing.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theBotKeepsTypingWhileTheAgentWorks() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "typist"])
            try await stack.waitForState("typist", "idle")
            let before = try await stack.fake.cursor
            let sent = Date().timeIntervalSince1970
            try await stack.dm("!scenario slow 180 100")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 180 ", since: before, timeout: 90)
            try await stack.waitForState("typist", "idle")
            // Longer than the renewal period: a loop still running would type again by then.
            try await Task.sleep(for: .seconds(10))
            let posts = try await stack.fake.get("/requests?path=/channels/\(dm)/messages&since=\(before)")["requests"]?.arrayValue ?? []
            // The final's last request to Discord.
            let postTimes = posts.compactMap { $0["time"]?.doubleValue }
            let finished = try #require(postTimes.max())

            let typing = try await stack.fake.get("/requests?method=POST&path=/channels/\(dm)/typing&since=\(before)")["requests"]?.arrayValue ?? []
            let times = typing.compactMap { $0["time"]?.doubleValue }
            #expect(typing.allSatisfy { $0["status"] == 204 }, "\(typing.map { $0["status"] ?? nil })")
            let first = try #require(times.first, "the bot never typed")
            #expect(first - sent < 5, "the first indicator came \(first - sent) s after the prompt")
            #expect(times.count >= 2, "an 18 s run needs the indicator renewed: \(times.map { $0 - sent })")
            for (a, b) in zip(times, times.dropFirst()) {
                #expect(b - a < 10, "a gap of \(b - a) s: Discord's indicator would have gone out")
            }
            let late = times.filter { $0 > finished + 1 }
            #expect(late.isEmpty, "typing after the final: \(late.map { $0 - finished })")
        }
    }

    /// A chunk without the ping of the DM's user (on the first message posted, not edited, for
    /// the final) and without its "[i/n]" label.
    static func body(_ chunk: String) -> String {
        let text = unpinged(chunk)
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else { return text }
        return String(text[text.index(after: close)...])
    }

    static func unpinged(_ chunk: String) -> String {
        guard chunk.hasPrefix("<@"), let close = chunk.firstIndex(of: ">") else { return chunk }
        return String(chunk[chunk.index(after: close)...].drop { $0 == " " })
    }

    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0.isWhitespace })
    }
}
