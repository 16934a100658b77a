import Foundation
import PiRelaySDK
import Testing

/// A chat driving the pi in a user's terminal, as a person sees it in Discord: the real daemon
/// and plugins, the fake Discord, and the shipped extension in the fake pi extension host. The
/// transcript is written out for reading and checked for the steps it must show.
@Suite struct StackTerminalTranscriptTests {
    /// Where the transcript is kept after the test (the test's own folder is removed).
    static var output: String {
        ProcessInfo.processInfo.environment["PI_RELAYD_TERMINAL_TRANSCRIPT"]
            ?? BuildProducts.directory + "/stack-terminal-transcript.txt"
    }

    /// A prompt, `/compact`, a prompt pi cannot start (its model has no key), an `@.env` read
    /// the secrets rule gates (denied), and `/stop` while a `rm -rf` waits for approval.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aChatDrivesATerminalSessionThroughCompactAFailedPromptAGateAndAStop() async throws {
        try await StackHome.with { stack in
            try await stack.start(StackConfig(extra: StackGateTrapTests.rules))
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            let session = StackTerminalTests.sessionID
            _ = try await stack.command("use", ["session": .string(session)])

            try await stack.dm("summarise this project")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: summarise this project")
            try await waitUntil("the run is over") {
                try await stack.sessions().first { $0["id"]?.stringValue == session }?["state"] == "idle"
            }

            let compacted = try await stack.command("compact")
            #expect(compacted.text.contains("Compacted"), "\(compacted)")
            _ = try await pi.waitToSee("the terminal's compaction") {
                $0["saw"] == "compaction" && $0["phase"] == "end" && $0["outcome"] == "done"
            }

            pi.perform(["do": "model", "provider": "nokey", "id": "model-without-key"])
            try await waitUntil("the daemon knows the terminal's keyless model") {
                try await stack.sessions().first { $0["id"]?.stringValue == session }?["model"] == "nokey/model-without-key"
            }
            try await stack.dm("fix the failing test")
            try await stack.waitForBotMessage(in: dm, containing: "no API key for nokey: run /login in the terminal", timeout: 20)
            pi.perform(["do": "model", "provider": "anthropic", "id": "claude-sonnet-4-5"])
            try await waitUntil("the daemon knows the terminal's model again") {
                try await stack.sessions().first { $0["id"]?.stringValue == session }?["model"] == "anthropic/claude-sonnet-4-5"
            }

            try await stack.dm(#"call: read {"path":"@.env"}"#)
            let secret = try await StackApprovalTests.gate(stack, dm, containing: "@.env")
            _ = try await StackApprovalTests.press(stack, "Deny", on: secret)
            let denied = try await StackApprovalTests.runEnd(pi, after: 1)
            #expect(denied.contains(#"approval gate "secrets" denied read"#), "\(denied)")
            try await waitUntil("the denied run is over") {
                try await stack.sessions().first { $0["id"]?.stringValue == session }?["state"] == "idle"
            }

            try await stack.dm("run: rm -rf build")
            let risky = try await StackApprovalTests.gate(stack, dm, containing: "rm -rf build")
            let stopped = try await stack.command("stop")
            #expect(stopped.text.hasPrefix("Stopped"), "\(stopped)")
            _ = try await waitFor("the approval card closed") { () -> JSONValue? in
                let message = try await stack.fake.message(try #require(risky["id"]?.stringValue))
                return (message["components"]?.arrayValue?.isEmpty ?? true) ? message : nil
            }
            let end = try await StackApprovalTests.runEnd(pi, after: 2)
            #expect(!end.contains("Done: ran rm -rf build"), "the command never ran: \(end)")
            try await waitUntil("the stopped run is over", timeout: .seconds(15)) {
                try await stack.sessions().first { $0["id"]?.stringValue == session }?["state"] == "idle"
            }
            _ = try await stack.command("status")

            let all = try await stack.fake.transcriptText()
            let lines = all.split(separator: "\n", omittingEmptySubsequences: false)
            // From the /use on; gateway set-up and command registration before it are noise here.
            let from = lines.firstIndex { $0.contains("slash alice: /use") } ?? lines.startIndex
            let transcript = lines[from...].joined(separator: "\n")
            try transcript.write(toFile: Self.output, atomically: true, encoding: .utf8)
            print("--- the terminal session as the fake Discord saw it (saved to \(Self.output)) ---\n\(transcript)\n--- end ---")

            for step in [
                "slash alice: /use", "Echo: summarise this project", "slash alice: /compact", "Compacted",
                "user alice: fix the failing test", "no API key for nokey", "@.env", "click alice -> ", "Deny",
                "user alice: run: rm -rf build", "slash alice: /stop", "slash alice: /status",
            ] {
                #expect(transcript.contains(step), "the transcript shows \(step)")
            }
        }
    }
}
