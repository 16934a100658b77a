import Foundation
import PiRelaySDK
import Testing

/// Gates that match the path pi opens, and a stop that really stops, through the daemon, the
/// fake Discord and a terminal pi (the fake pi extension host running the real extension): pi
/// normalises paths inside its tools after `tool_call` (pi extension spec §11 trap 13), and pi's
/// abort cannot end a `tool_call` handler that waits for a person (trap 12).
@Suite(.serialized) struct StackGateTrapTests {
    static let rules = """
        approvals:
          timeoutSeconds: 300
          rules:
            - name: secrets
              tools: [read, write, edit]
              paths: ['.env*']
            - name: rm-rf
              tools: bash
              command: 'rm\\s+-rf'

        """

    /// `read @.env` opens the folder's .env (pi strips the `@`): the chat is asked first.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anAtEnvReadIsGatedInTheChat() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules))
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            try await stack.dm(#"call: read {"path":"@.env"}"#)
            let question = try await StackApprovalTests.gate(stack, dm, containing: "@.env")
            let shown = question["content"]?.stringValue ?? ""
            #expect(shown.contains("rule: secrets") && shown.contains("Approve read?"), "\(shown)")
            _ = try await StackApprovalTests.press(stack, "Deny", on: question)
            let denied = try await StackApprovalTests.runEnd(pi, after: 0)
            #expect(denied.contains(#"approval gate "secrets" denied read"#), "\(denied)")
        }
    }

    /// A chat's /stop while an approval waits (its timeout is 300 s): the call is denied, the
    /// chat's card and the terminal's dialog close, all within seconds.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func stopDuringAPendingApprovalDeniesAndClosesEverythingAtOnce() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: Self.rules))
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

            try await stack.dm("run: rm -rf build")
            let question = try await StackApprovalTests.gate(stack, dm, containing: "rm -rf build")
            try await pi.waitToSee("the terminal's copy") { $0["saw"] == "dialog" && $0["title"]?.stringValue?.contains("rm-rf") == true }
            let started = ContinuousClock.now
            let stopped = try await stack.command("stop")
            #expect(stopped.text.hasPrefix("Stopped"), "\(stopped)")
            let end = try await StackApprovalTests.runEnd(pi, after: 0)
            #expect(!end.contains("Done: ran rm -rf build"), "the command never ran: \(end)")
            try await pi.waitToSee("the terminal's dialog closed") { $0["saw"] == "dialog_closed" && $0["by"] == "abort" }
            let closed = try await waitFor("the chat's card closed") { () -> JSONValue? in
                let message = try await stack.fake.message(try #require(question["id"]?.stringValue))
                return (message["components"]?.arrayValue?.isEmpty ?? true) ? message : nil
            }
            #expect(closed["content"]?.stringValue?.contains("stopped") == true, "\(closed)")
            #expect(ContinuousClock.now - started < .seconds(10), "stopped in \(ContinuousClock.now - started)")
            let log = stack.home.read("state/approvals.jsonl")
            #expect(log.contains("\"abandoned\"") || log.contains("stopped"), "\(log)")
        }
    }
}
