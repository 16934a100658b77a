import Foundation
import PiRelaySDK
import Testing

/// The chat and command layers through a messenger linked into the test process: the daemon,
/// its desk and delivery, the real formatter and the plugin protocol on pipes, with no process
/// per plugin (the supervisor in small parts: fast tests).
@Suite(.timeLimit(.minutes(3))) struct LinkedChatTests {
    @Test func commandsAndRefusalsAnswerWithoutASession() async throws {
        try await LinkedRelay.with { relay in
            let help = try await relay.say("/help")
            #expect(help.status == .command)
            #expect(help.reply?.text.contains("/new") == true, "\(help)")

            let unbound = try await relay.say("hello")
            #expect(unbound.status == .unbound)
            #expect(unbound.reply?.text.contains("No session here yet") == true, "\(unbound)")

            let stranger = try await relay.say("hello", from: "intruder")
            #expect(stranger.status == .refused, "a user off the allowlist is refused: \(stranger)")
        }
    }

    @Test func aPromptFromTheChatIsAnsweredThroughTheFormatter() async throws {
        try await LinkedRelay.with { relay in
            let started = try await relay.say("/new \(relay.workspace) linked")
            #expect(started.reply?.text.contains("Started linked") == true, "\(started)")
            let prompted = try await relay.say("hello there")
            #expect(prompted.status == .prompted, "\(prompted)")
            let heard = try await relay.waitToHear("Echo: hello there")
            #expect(heard.contains { $0.method == MethodName.chatPost.rawValue || $0.method == MethodName.chatLive.rawValue })
        }
    }
}
