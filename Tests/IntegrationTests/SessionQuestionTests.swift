import Foundation
import PiRelaySDK
import Testing

/// Extension dialogs (select, confirm, input, editor) as `questions`, answered and cancelled from
/// the CLI. The fake's extension echoes what it got into the final answer (`last`), and
/// FAKE_PI_LOG shows the exact `extension_ui_response` the daemon wrote.
@Suite struct SessionQuestionTests {
    /// Sends `prompt`, waits for its one question and returns it (`questions --json`).
    static func ask(_ s: SessionHome, _ id: String, _ prompt: String) async throws -> JSONValue {
        _ = try await s.json("send", id, prompt)
        try await s.waitForState(id, "waiting-for-answer")
        let open = try await s.json("questions", id).arrayValue ?? []
        #expect(open.count == 1, "\(open)")
        return try #require(open.first)
    }

    /// Waits for the run to end and returns the agent's final answer.
    static func outcome(_ s: SessionHome, _ id: String) async throws -> String? {
        try await s.waitForState(id, "idle", timeout: .seconds(30))
        return try await s.last(id)
    }

    /// The `extension_ui_response` written for question `qid`.
    static func response(_ s: SessionHome, _ qid: String) throws -> JSONValue {
        let lines = s.piInput("extension_ui_response").filter { $0["id"]?.stringValue == qid }
        #expect(lines.count == 1, "exactly one response per question: \(lines)")
        return try #require(lines.first)
    }

    /// pi extension spec §11 trap 11: a steer pi finds queued when a tool call's dialog
    /// returns makes it skip the call ("Skipped due to queued user message."), though the user
    /// approved it; the fake pi does the same. A spawned session's steer while a dialog is open
    /// waits as a follow-up, says so, and the approved call runs.
    @Test func aSteerWhileADialogIsOpenDoesNotSkipTheApprovedCall() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "gated")
            _ = try await Self.ask(s, id, "!scenario ui select 0")
            let steered = try await s.json("steer", "gated", "and the tests too")
            #expect(steered["status"] == "queued" && steered["note"]?.stringValue?.contains("waits as a follow-up") == true, "\(steered)")
            #expect(try await s.plain("answer", "gated", "1", "1") == "answered\n")
            try await s.waitForState(id, "idle", timeout: .seconds(30))
            let ends = try await s.history(id, "--type", "tool_execution_end")
            // History keeps whether a call failed, not its text: a skipped call failed.
            #expect(ends.first { $0["toolName"] == "bash" }?["isError"] == false, "the approved call ran: \(ends)")
            let sent = s.piInput("prompt").map { "\($0["streamingBehavior"]?.stringValue ?? "-") \($0["message"]?.stringValue ?? "")" }
            #expect(sent.last == "followUp and the tests too", "\(sent)")
        }
    }

    /// pi-rpc §3: an agent loop that throws ends with only `agent_end` (its synthetic error
    /// message gets no `message_end`; the fake pi does the same). The run ends with that error.
    @Test func anAgentLoopThatThrowsEndsWithItsError() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "thrown")
            try await s.prompt(id, "!scenario agent-throw")
            let finished = try await s.history(id, "--type", "run_finished")
            #expect(finished.last?["stopReason"] == "error", "ended as failed, not as an answer of no words: \(finished)")
        }
    }

    @Test func everyDialogKindIsAnsweredInItsOwnShape() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "q")

            // select (the dangerous-command gate), answered by option number.
            var q = try await Self.ask(s, id, "!scenario ui select 0")
            var qid = try #require(q["id"]?.stringValue)
            #expect(q["method"] == "select" && q["title"] == "Dangerous command: rm -rf ./build", "\(q)")
            #expect(q["options"] == ["Allow", "Block"])
            #expect(q["sessionId"]?.stringValue == id)
            #expect(q["secondsLeft"] == nil && q["expiresAt"] == nil, "no timeout, no countdown: \(q)")
            let listed = try await s.plain("questions", "q")
            #expect(listed == "1. [\(qid)] select: Dangerous command: rm -rf ./build\n   options: 1. Allow  2. Block\n", "\(listed)")
            #expect(try await s.plain("answer", "q", "1", "1") == "answered\n")
            #expect(try await Self.outcome(s, id) == "select answer: \"Allow\"")
            #expect(try Self.response(s, qid) == ["id": .string(qid), "type": "extension_ui_response", "value": "Allow"])

            // confirm, answered "no" by the question's id: `confirmed`, not `value`.
            q = try await Self.ask(s, id, "!scenario ui confirm 0")
            qid = try #require(q["id"]?.stringValue)
            #expect(q["method"] == "confirm" && q["message"] == "This rewrites 3 files.", "\(q)")
            #expect(try await s.plain("questions").contains("confirm: Apply the migration? — This rewrites 3 files."))
            #expect(try await s.json("answer", "q", qid, "no") == ["answered": .string(qid)])
            #expect(try await Self.outcome(s, id) == "confirm answer: false")
            #expect(try Self.response(s, qid) == ["id": .string(qid), "type": "extension_ui_response", "confirmed": false])

            // input, answered by a prefix of its id.
            q = try await Self.ask(s, id, "!scenario ui input")
            qid = try #require(q["id"]?.stringValue)
            #expect(q["method"] == "input" && q["placeholder"] == "feature/...", "\(q)")
            #expect(try await s.plain("answer", "q", String(qid.prefix(8)), "feature/quirks") == "answered\n")
            #expect(try await Self.outcome(s, id) == "input answer: \"feature/quirks\"")
            #expect(try Self.response(s, qid)["value"] == "feature/quirks")

            // editor: a multi-line answer arrives as typed.
            q = try await Self.ask(s, id, "!scenario ui editor")
            qid = try #require(q["id"]?.stringValue)
            #expect(q["method"] == "editor" && q["prefill"] == "Fix config handling\n\nDetails:\n- one\n- two", "\(q)")
            _ = try await s.plain("answer", "q", "1", "Line one\nLine two")
            #expect(try await Self.outcome(s, id) == "editor answer: \"Line one\\nLine two\"")
            #expect(try Self.response(s, qid)["value"] == "Line one\nLine two")

            // select by option text, whatever its case.
            q = try await Self.ask(s, id, "!scenario ui ask-select 0")
            qid = try #require(q["id"]?.stringValue)
            _ = try await s.plain("answer", "q", "1", "GREEN")
            #expect(try await Self.outcome(s, id) == "select answer: \"green\"")
            #expect(try Self.response(s, qid)["value"] == "green")
            #expect(try await s.plain("questions", "q") == "no open questions\n")
        }
    }

    @Test func everyDialogKindIsCancelledAndBadAnswersAreRefused() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "c")
            let expected = [
                ("!scenario ui select 0", "select answer: null"),
                ("!scenario ui confirm 0", "confirm answer: false"),
                ("!scenario ui input", "input answer: null"),
                ("!scenario ui editor", "editor answer: null"),
            ]
            for (prompt, answer) in expected {
                let q = try await Self.ask(s, id, prompt)
                let qid = try #require(q["id"]?.stringValue)
                if q["method"] == "confirm" {
                    let bad = try await s.run("answer", "c", "1", "maybe")
                    #expect(bad.status == 1 && bad.stderr == "pi-relayd: answer yes or no\n", "\(bad)")
                }
                if q["method"] == "select" {
                    let bad = try await s.run("answer", "c", "1", "Purple")
                    #expect(bad.status == 1 && bad.stderr == "pi-relayd: choose one of: 1. Allow, 2. Block\n", "\(bad)")
                    let outOfRange = try await s.run("answer", "c", "1", "3")
                    #expect(outOfRange.status == 1, "\(outOfRange)")
                }
                let unknown = try await s.run("cancel", "c", "nope")
                #expect(unknown.status == 1 && unknown.stderr.contains("no open question nope"), "\(unknown)")
                #expect(try await s.plain("cancel", "c", qid) == "cancelled\n")
                #expect(try await Self.outcome(s, id) == answer, "\(prompt)")
                #expect(try Self.response(s, qid) == ["id": .string(qid), "type": "extension_ui_response", "cancelled": true])
                let late = try await s.run("answer", "c", qid, "yes")
                #expect(late.status == 1 && late.stderr.contains("no open question"), "a closed question takes no answer: \(late)")
            }
            let closed = try await s.history(id, "--type", "question_cancelled")
            #expect(closed.count == 4 && closed.allSatisfy { $0["by"] == "terminal" }, "\(closed)")
        }
    }

    /// A stop with a dialog open: one with the tool's abort signal is resolved by pi silently
    /// (pi-rpc spec §4), one without (rpc-demo's gate, fake-pi README) would hold pi's abort
    /// until someone answers. Either way the dialog is cancelled on pi and closed here, so no
    /// card stays answerable and the stop answers at once.
    @Test func aStopWithADialogOpenCancelsItAndEndsTheRun() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "s")
            for prompt in ["!scenario ui ask-select 0", "!scenario ui select 0"] {
                let q = try await Self.ask(s, id, prompt)
                let qid = try #require(q["id"]?.stringValue)
                let asked = ContinuousClock.now
                #expect(try await s.plain("abort", "s") == "aborted\n", "\(prompt)")
                #expect(ContinuousClock.now - asked < .seconds(10), "\(prompt): the stop waited \(ContinuousClock.now - asked)")
                try await s.waitForState(id, "idle", timeout: .seconds(10))
                #expect(try await s.plain("questions", "s") == "no open questions\n", "\(prompt)")
                #expect(try Self.response(s, qid) == ["id": .string(qid), "type": "extension_ui_response", "cancelled": true])
                let late = try await s.run("answer", "s", qid, "1")
                #expect(late.status == 1 && late.stderr.contains("no open question"), "\(prompt): \(late)")
            }
            let closed = try await s.history(id, "--type", "question_cancelled")
            #expect(closed.count == 2 && closed.allSatisfy { $0["by"] == "abort" }, "\(closed)")
        }
    }

    @Test func aDialogWithATimeoutExpiresOnOurSideToo() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "t")
            let q = try await Self.ask(s, id, "!scenario ui ask-select 8000")
            let qid = try #require(q["id"]?.stringValue)
            let first = try #require(q["secondsLeft"]?.intValue, "\(q)")
            #expect((1...8).contains(first), "\(q)")
            #expect(SessionHome.date(q["expiresAt"]) != nil, "\(q)")
            #expect(try await s.plain("questions").contains("\n   expires in "), "countdown shown in the plain list too")
            try await waitUntil("the countdown goes down") {
                try await (s.json("questions", "t").arrayValue?.first?["secondsLeft"]?.intValue ?? 0) < first
            }
            try await waitUntil("the question expired on our side", timeout: .seconds(20)) {
                try await s.json("questions").arrayValue?.isEmpty == true
            }
            #expect(try await s.history(id, "--type", "question_expired").map { $0["id"] } == [.string(qid)])
            // pi closed it itself with its default; the daemon wrote nothing for it.
            #expect(try await Self.outcome(s, id) == "select answer: null")
            #expect(s.piInput("extension_ui_response").isEmpty)
            let late = try await s.run("answer", "t", qid, "red")
            #expect(late.status == 1 && late.stderr.contains("no open question"), "\(late)")
        }
    }

    @Test func aDialogWithoutATimeoutWaitsForItsAnswer() async throws {
        try await SessionHome.with { s in
            try await s.start()
            let id = try await s.new(name: "w")
            let q = try await Self.ask(s, id, "!scenario ui input")
            let qid = try #require(q["id"]?.stringValue)
            #expect(q["secondsLeft"] == nil)
            // Nothing closes it while nobody answers: a few seconds later it is still open.
            try await Task.sleep(for: .seconds(3))
            #expect(try await s.json("questions", "w").arrayValue?.compactMap { $0["id"] } == [.string(qid)])
            #expect(try await s.summary(id)?["state"] == "waiting-for-answer")
            _ = try await s.plain("answer", "w", qid, "late but fine")
            #expect(try await Self.outcome(s, id) == "input answer: \"late but fine\"")
        }
    }

    @Test func dialogTimeoutSecondsClosesDialogsThatHaveNoneOfTheirOwn() async throws {
        try await SessionHome.with(SessionConfig(dialogTimeoutSeconds: 5)) { s in
            try await s.start()
            let id = try await s.new(name: "p")
            let q = try await Self.ask(s, id, "!scenario ui input")
            let qid = try #require(q["id"]?.stringValue)
            #expect((1...5).contains(q["secondsLeft"]?.intValue ?? 0), "the policy's countdown: \(q)")
            // pi would wait forever: the daemon cancels it there when the policy's time is up.
            #expect(try await Self.outcome(s, id) == "input answer: null")
            #expect(try Self.response(s, qid)["cancelled"] == true)
            #expect(try await s.history(id, "--type", "question_expired").count == 1)
        }
    }
}
