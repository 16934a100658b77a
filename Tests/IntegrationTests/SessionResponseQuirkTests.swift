import Foundation
import PiRelaySDK
import Testing

/// pi's response quirks (specs/pi-rpc.md §2 and §5), each through the CLI: out-of-order answers,
/// failures without an id, a prompt answered twice, `streamingBehavior` on every prompt.
@Suite struct SessionResponseQuirkTests {
    @Test func concurrentCommandsGetTheirOwnAnswers() async throws {
        // A compaction slow enough that later, fast commands are answered before it.
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_COMPACT_MS": "2500"])) { s in
            try await s.start()
            let id = try await s.new(name: "q")
            try await s.prompt(id, "something to compact")

            async let compacted = s.json("compact", "q")
            try await waitUntil("pi has the compact command") { !s.piInput("compact").isEmpty }
            async let state = s.json("state", "q")
            async let stats = s.json("stats", "q")
            async let last = s.json("last", "q")
            // The fast ones come back while the compaction is still running, each with its own data.
            let (st, sa, la) = try await (state, stats, last)
            #expect(st["sessionFile"] != nil && st["isCompacting"] != nil, "get_state's answer: \(st)")
            #expect(sa["totalMessages"] != nil, "get_session_stats's answer: \(sa)")
            #expect(la == ["text": "Echo: something to compact"])
            let c = try await compacted
            #expect(c["summary"] != nil && c["tokensBefore"] != nil, "compact's answer: \(c)")
        }
    }

    @Test func failuresWithoutAnIdReachTheCommandThatCausedThem() async throws {
        // openai's stored credentials fail when used: set_model throws inside pi, whose answer is
        // the id-less `{"command":"parse","success":false,...}`.
        let config = SessionConfig(env: ["FAKE_PI_AUTH": "anthropic,openai:broken", "FAKE_PI_COMPACT_MS": "2500"])
        try await SessionHome.with(config) { s in
            try await s.start()
            let id = try await s.new(name: "p")
            try await s.prompt(id, "hello")

            let refused = try await s.run("model", "p", "openai/gpt-5.4", timeout: .seconds(30))
            #expect(refused.status == 1)
            #expect(refused.stderr == "pi-relayd: pi refused set_model: No API key for openai/gpt-5.4\n", "\(refused)")
            #expect(try await s.summary(id)?["model"] == "anthropic/claude-opus-4-6", "the model did not change")

            // Compacting twice: the second throws "Already compacted", also without an id.
            _ = try await s.json("compact", "p")
            let again = try await s.run("compact", "p", "--json", timeout: .seconds(30))
            #expect(again.status == 1)
            #expect(try again.json()["error"]?["message"] == "pi refused compact: Already compacted", "\(again)")

            // With a slow compaction in flight, the id-less failure of set_model is still
            // set_model's: the compaction is not failed by it, and set_model does not hang.
            try await s.prompt(id, "more")
            async let compacted = s.run("compact", "p", "--json", timeout: .seconds(30))
            try await waitUntil("pi has the third compact command") { s.piInput("compact").count == 3 }
            let during = try await s.run("model", "p", "openai/gpt-5.4", timeout: .seconds(30))
            #expect(during.status == 1)
            #expect(during.stderr == "pi-relayd: pi refused set_model: No API key for openai/gpt-5.4\n", "\(during)")
            let c = try await compacted
            #expect(c.status == 0, "\(c)")
            #expect(try c.json()["tokensBefore"] != nil, "\(c)")

            // An abort with a dialog open (pi answers the abort only once the dialog is closed)
            // cancels the dialog first, so it does not wait for a person; an id-less failure
            // around it is still set_model's, and the abort ends normally.
            _ = try await s.json("send", "p", "!scenario ui select 0")
            try await s.waitForState(id, "waiting-for-answer")
            async let aborted = s.run("abort", "p", "--json", timeout: .seconds(30))
            try await waitUntil("pi has the abort") { !s.piInput("abort").isEmpty }
            let meanwhile = try await s.run("model", "p", "openai/gpt-5.4", timeout: .seconds(30))
            #expect(meanwhile.stderr == "pi-relayd: pi refused set_model: No API key for openai/gpt-5.4\n", "\(meanwhile)")
            let a = try await aborted
            #expect(a.status == 0 && (try? a.json()) == ["aborted": true], "\(a)")
            #expect(s.piInput("extension_ui_response").last?["cancelled"] == true, "the dialog was cancelled, not answered")

            // Everything still works afterwards: nothing is left waiting on a lost answer.
            try await s.waitForState(id, "idle")
            #expect(try await s.json("state", "p")["isCompacting"] == false)
            try await s.prompt(id, "still here")
            #expect(try await s.last(id) == "Echo: still here")
        }
    }

    @Test func everyPromptCarriesStreamingBehaviorSoABusyAgentQueuesIt() async throws {
        // With an `input` handler pi would send the busy refusal *after* accepting the prompt.
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_INPUT_HANDLER": "1"])) { s in
            try await s.start()
            let id = try await s.new(name: "b")
            let runs = try await s.finishedRuns(id)
            #expect(try await s.plain("send", "b", "!scenario slow 100 50") == "prompted\n")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("send", "b", "while you work") == "queued\n")
            #expect(try await s.json("send", "b", "and this") == ["status": "queued", "session": .string(id)])
            try await waitUntil("everything was answered", timeout: .seconds(60)) {
                try await s.last(id) == "Echo: and this"
            }
            try await s.waitForState(id, "idle")
            let prompts = s.piInput("prompt")
            #expect(prompts.count == 3)
            #expect(prompts.allSatisfy { $0["streamingBehavior"] == "followUp" }, "\(prompts)")
            #expect(try await s.history(id, "--type", "prompt_rejected").isEmpty, "pi never refused a prompt")
            let users = try await s.history(id, "--type", "message_start").filter { $0["role"] == "user" }
            #expect(users.count == 3, "each prompt reached pi once: \(users)")
            #expect(try await s.finishedRuns(id) == runs + 1, "the queued prompts ran inside the same run")
        }
    }

    @Test func steerPolicyQueuesBusyPromptsAsSteering() async throws {
        try await SessionHome.with(SessionConfig(busyPolicy: "steer")) { s in
            try await s.start()
            let id = try await s.new(name: "st")
            _ = try await s.json("send", "st", "!scenario slow 100 50")
            try await s.waitForState(id, "busy")
            #expect(try await s.plain("send", "st", "change course") == "steered\n")
            try await s.waitForState(id, "idle", timeout: .seconds(60))
            #expect(s.piInput("prompt").allSatisfy { $0["streamingBehavior"] == "steer" })
        }
    }

    /// pi-rpc spec §5: a second prompt in the first one's pre-run phase (a slow API-key lookup)
    /// passes pi's streaming check and is refused a moment later. Nothing may be lost: it waits
    /// as a follow-up, and runs after the first.
    @Test func aPromptInTheFirstOnesPreRunWaitsAsAFollowUp() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_PRERUN_MS": "1500"])) { s in
            try await s.start()
            let id = try await s.new(name: "p")
            #expect(try await s.plain("send", "p", "!scenario slow 40 50") == "prompted\n")
            #expect(try await s.plain("send", "p", "second") == "queued\n", "it waits behind the first, and says so")
            try await waitUntil("both prompts were answered", timeout: .seconds(30)) {
                try await s.last(id) == "Echo: second"
            }
            #expect(try await s.history(id, "--type", "prompt_rejected").isEmpty, "nothing was refused")
            let users = try await s.history(id, "--type", "message_start").filter { $0["role"] == "user" }
            #expect(users.count == 2, "each prompt reached pi once: \(users)")
        }
    }

    /// pi extension spec §11 trap 10 (pi-rpc spec §5): an `abort` in a prompt's pre-run phase
    /// (the key lookup, a compaction) finds no run to abort and does nothing; the prompt then
    /// runs in full. The stop is kept for that run, which is aborted as it starts: "Stopped"
    /// holds, and what was queued behind it still runs.
    @Test func aStopInAPromptsPreRunStopsItsRun() async throws {
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_PRERUN_MS": "1500"])) { s in
            try await s.start()
            let id = try await s.new(name: "pre")
            let before = try await s.finishedRuns(id)
            #expect(try await s.plain("send", "pre", "!scenario slow 40 50") == "prompted\n")
            _ = try await s.json("abort", "pre")
            try await waitUntil("the run ended", timeout: .seconds(30)) { try await s.finishedRuns(id) > before }
            #expect(try await s.history(id, "--type", "run_finished").last?["stopReason"] == "aborted")
            #expect(try await s.last(id)?.contains("chunk 40") != true, "the stopped prompt ran to its end")
            // The stop was spent: the next prompt runs.
            try await s.prompt(id, "after")
            #expect(try await s.last(id) == "Echo: after")
        }
    }

    @Test func aPromptRejectedAfterItWasAcceptedIsReported() async throws {
        // Broken stored credentials: pi accepts the prompt, then answers it a second time with
        // success:false once the key lookup fails.
        try await SessionHome.with(SessionConfig(env: ["FAKE_PI_AUTH": "anthropic:broken,openai"])) { s in
            try await s.start()
            let id = try await s.new(name: "r")
            #expect(try await s.plain("send", "r", "hello") == "prompted\n")
            let rejected = try await waitFor("the late rejection is in the history") {
                try await s.history(id, "--type", "prompt_rejected").first
            }
            #expect(rejected["error"]?.stringValue?.hasPrefix("No API key found for anthropic.") == true, "\(rejected)")
            #expect(try await s.summary(id)?["state"] == "idle", "no run started, none is pending")
            #expect(try await s.finishedRuns(id) == 0)
            // The refused prompt no longer counts as a run about to start: the next one is not queued.
            #expect(try await s.plain("send", "r", "once more") == "prompted\n")
            _ = try await waitFor("the second late rejection is in the history") {
                let rejections = try await s.history(id, "--type", "prompt_rejected")
                return rejections.count >= 2 ? rejections : nil
            }

            // A model with working credentials lets the session go on.
            _ = try await s.json("model", "r", "openai/gpt-5.4")
            try await s.prompt(id, "again")
            #expect(try await s.last(id) == "Echo: again")
        }
    }
}
