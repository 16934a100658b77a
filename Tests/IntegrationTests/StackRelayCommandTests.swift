import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// "Terminal sessions behave exactly as real pi does", points 10, 13 and 14, through the real
/// daemon, the discord plugin against its fake, and the fake pi host running the real extension:
/// `/relay pair` in the terminal binds the chat that claims the code; another extension's
/// ask_user shows in the chat and closes when the terminal answers it; a chat's `/skill:` prompt
/// reaches pi expanded.
@Suite(.serialized) struct StackRelayCommandTests {
    static let piSessionID = "7c2e9a10-3b4d-4e5f-8a6b-1c2d3e4f5a6b"
    static let sessionID = "t-7c2e9a103b4d"

    static func attach(_ stack: StackHome, alsoLoad: [String] = []) async throws -> HostedPi {
        let pi = try HostedPi(home: stack.home, name: "pi1", cwd: stack.workspace, sessionID: Self.piSessionID, alsoLoad: alsoLoad)
        try await waitUntil("the terminal session is attached", timeout: .seconds(30)) {
            try await stack.sessions().contains { $0["id"]?.stringValue == Self.sessionID && $0["state"] == "idle" }
        }
        return pi
    }

    /// Alice is on no allowlist. `/relay pair discord docs` in the terminal shows a code; she
    /// claims it in her DM, is let in, her DM watches the terminal session under "docs", and her
    /// next message runs there and is answered in the DM.
    @Test(.timeLimit(.minutes(3)))
    func relayPairInTheTerminalBindsTheClaimingChat() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            try await stack.start(config)
            let pi = try await Self.attach(stack)
            defer { pi.stop() }
            let dm = try await stack.dmChannel(.alice)

            pi.type("/relay pair discord docs")
            let shown = try await pi.waitToSee("the pairing code") {
                $0["saw"] == "notify" && $0["message"]?.stringValue?.hasPrefix("Pairing code for discord: ") == true
            }
            let message = try #require(shown["message"]?.stringValue)
            let code = try #require(message.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            #expect(message.contains("/pair \(code)") && message.contains("watches this session as \"docs\""), "\(message)")
            #expect(!pi.seen.contains { $0["saw"] == "user_message" }, "the command reached no model")

            try await stack.dm("/pair \(code)", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "✅ Paired: this chat now watches the terminal session docs")
            try await pi.waitToSee("the footer name the watching messenger") { $0["saw"] == "status" && $0["text"] == "relay: watching on discord" }

            try await stack.dm("hello from the paired chat", from: .alice)
            try await pi.waitToSee("the chat's prompt in the terminal's pi") {
                $0["saw"] == "user_message" && $0["text"] == "hello from the paired chat"
            }
            try await stack.waitForBotMessage(in: dm, containing: "Echo: hello from the paired chat")
            #expect(pi.seen.filter { $0["saw"] == "extension_error" }.isEmpty, "\(pi.seen)")
        }
    }
}
