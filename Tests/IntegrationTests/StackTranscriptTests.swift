import Foundation
import PiRelaySDK
import Testing

/// One whole session as a person sees it in Discord, written out from the fake Discord's
/// human-readable transcript: for reading, and checked for the steps it must show.
@Suite struct StackTranscriptTests {
    /// Where the transcript is kept after the test (the test's own folder is removed).
    static var output: String {
        ProcessInfo.processInfo.environment["PI_RELAYD_STACK_TRANSCRIPT"] ?? BuildProducts.directory + "/stack-transcript.txt"
    }

    /// In a DM: /new, a prompt whose answer streams with tool lines (`!scenario tools`), a
    /// question answered with a button, a slow run stopped with /stop, then /status.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aWholeSessionReadsWellInTheTranscript() async throws {
        try await StackHome.with { stack in
            try await stack.start(environment: ["FAKE_PI_DELTA_MS": "25"])
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "demo"])

            try await stack.dm("!scenario tools")
            try await stack.waitForBotMessage(in: dm, containing: "Tests pass, the TODO is fixed", timeout: 90)
            try await stack.waitForState("demo", "idle")

            try await stack.dm("!scenario ui confirm")
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            _ = try await stack.reply(
                to: try await stack.click(
                    try #require(StackHome.button("Yes", in: question)),
                    on: try #require(question["id"]?.stringValue)))
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
            try await stack.waitForState("demo", "idle")

            try await stack.dm("!scenario slow 200 60")
            try await stack.waitForBotMessage(in: dm, containing: "chunk 8 ")
            _ = try await stack.command("stop")
            try await stack.waitForBotMessage(in: dm, containing: "⏹ Aborted")
            _ = try await stack.command("status")

            let all = try await stack.fake.transcriptText()
            let lines = all.split(separator: "\n", omittingEmptySubsequences: false)
            // From the /new on; gateway set-up and command registration before it are noise here.
            let from = lines.firstIndex { $0.contains("slash alice: /new") } ?? lines.startIndex
            let transcript = lines[from...].joined(separator: "\n")
            try transcript.write(toFile: Self.output, atomically: true, encoding: .utf8)
            print("--- the whole session as the fake Discord saw it (saved to \(Self.output)) ---\n\(transcript)\n--- end ---")

            for step in [
                "slash alice: /new", "user alice: !scenario tools", "bot edited", "🔧", "click alice -> Yes",
                "alice (discord) answered: yes", "confirm answer: true", "user alice: !scenario slow", "slash alice: /stop",
                "⏹ Aborted", "slash alice: /status",
            ] {
                #expect(transcript.contains(step), "the transcript shows \(step)")
            }
        }
    }
}
