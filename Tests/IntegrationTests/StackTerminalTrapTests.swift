import Foundation
import PiRelaySDK
import Testing

/// What real pi does that a naive relay misses (the pi extension spec's §11), for the traps no
/// other suite covers: pictures for a model that reads none (trap 9), the model a `/resume`
/// restores only after `session_switch` (trap 15), and answers whose deltas do not rebuild the
/// final text (trap 18). The real daemon and plugins, the fake Discord, and the shipped
/// extension in the fake pi extension host.
@Suite(.serialized) struct StackTerminalTrapTests {
    /// Trap 9: pi hands pictures to any model, and the provider drops them without a word when
    /// the model's `input` lacks "image". The chat's vision check must know the terminal pi's
    /// model, which only the extension can tell.
    @Test(.timeLimit(.minutes(5)))
    func aPictureForATerminalModelWithoutImageInputIsNotSentSilently() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let pi = try await StackTerminalTests.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel()
            _ = try await stack.command("use", ["session": .string(StackTerminalTests.sessionID)])

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
}
