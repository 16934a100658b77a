import Foundation
import PiRelaySDK
import Testing

/// What real pi does that a naive relay misses (the pi extension spec's §11), for the traps no
/// other suite covers: pictures for a model that reads none (trap 9), the model a `/resume`
/// restores only after `session_switch` (trap 15), and answers whose deltas do not rebuild the
/// final text (trap 18; the daemon's side also in RunRecordFinalTextTests). The real daemon and
/// plugins, the fake Discord, and the shipped extension in the fake pi extension host.
@Suite(.serialized) struct StackTerminalTrapTests {
    /// The stack started, the terminal pi attached, and Alice's DM watching it.
    static func watched(_ stack: StackHome) async throws -> (HostedPi, String) {
        try await stack.start()
        let pi = try await StackTerminalTests.attach(stack)
        let dm = try await stack.dmChannel()
        _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])
        return (pi, dm)
    }

    /// Trap 9: pi hands pictures to any model, and the provider drops them without a word when
    /// the model's `input` lacks "image". The chat's vision check must know the terminal pi's
    /// model, which only the extension can tell.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aPictureForATerminalModelWithoutImageInputIsNotSentSilently() async throws {
        try await StackHome.with { stack in
            let (pi, dm) = try await Self.watched(stack)
            defer { pi.stop() }

            pi.perform(["do": "model", "provider": "openai", "id": "gpt-3.5-turbo"])
            try await waitUntil("the daemon knows the terminal's new model") {
                try await stack.sessions().first { $0["id"]?.stringValue == StackTerminalTests.sessionID }?["model"]
                    == "openai/gpt-3.5-turbo"
            }
            let png = Data(E2ESamples.png)
            try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true,
                    "content": "what is in this picture?",
                    "attachments": [["filename": "shot.png", "content_type": "image/png", "data_b64": .string(png.base64EncodedString())]],
                ])
            try await stack.waitForBotMessage(in: dm, containing: "takes no image input")
            let seen = try await pi.waitToSee("the text in the terminal's conversation") {
                $0["saw"] == "user_message" && $0["text"]?.stringValue?.hasPrefix("what is in this picture?") == true
            }
            #expect((seen["images"]?.arrayValue ?? []).isEmpty, "no picture went to a model that drops it: \(seen)")
        }
    }

    /// Trap 15: `/resume` fires `session_switch` while `ctx.model` is still the old session's;
    /// the resumed model comes after, with `model_select {source: "restore"}`. The daemon must
    /// end up showing the model the resumed conversation runs on, not the one it left.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func afterResumeTheDaemonShowsTheResumedModel() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let before = try await stack.sessions().first { $0["id"]?.stringValue == StackTerminalTests.sessionID }
            #expect(before?["model"] == "anthropic/claude-sonnet-4-5")

            let resumed = "9a8b7c6d-5e4f-4a1b-8c2d-3e4f5a6b7c8d"
            pi.perform([
                "do": "resume", "session": .string(resumed), "model": ["provider": "openai", "id": "gpt-5"],
            ])
            _ = try await pi.waitToSee("the resumed session") { $0["saw"] == "session" && $0["reason"] == "resume" }
            let resumedID = "t-9a8b7c6d5e4f"
            try await waitUntil("the daemon shows the resumed session on the resumed model") {
                try await stack.sessions().first { $0["id"]?.stringValue == resumedID }?["model"] == "openai/gpt-5"
            }
            // The 2 s info poll would repair a stale model late; it must not flip back either.
            try await Task.sleep(for: .seconds(3))
            let settled = try await stack.sessions().first { $0["id"]?.stringValue == resumedID }
            #expect(settled?["model"] == "openai/gpt-5", "\(String(describing: settled))")
        }
    }

    /// Trap 18: deltas do not always rebuild a block; a provider may finish one with its `done`
    /// event alone. The chat's final must be the answer pi saved (`message_end`), not the sum of
    /// the deltas the live view grew from.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aFinalIsTheAnswerPiSavedNotTheDeltasSum() async throws {
        try await StackHome.with { stack in
            let (pi, dm) = try await Self.watched(stack)
            defer { pi.stop() }

            try await stack.dm("gappy: the last word comes only at the end")
            let ran = try await pi.waitToSee("the run end") { $0["saw"] == "run_end" }
            #expect(ran["text"] == "Echo: gappy: the last word comes only at the end", "\(ran)")
            try await stack.waitForBotMessage(in: dm, containing: "only at the end")
        }
    }
}
