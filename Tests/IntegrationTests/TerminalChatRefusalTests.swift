import Foundation
import Testing

/// A chat prompt to a terminal session whose pi is closed is answered in the chat with the
/// reason. Thrown back to the messenger as `unavailable` instead (what a stopping daemon says),
/// a MessengerKit messenger kept it in its journal, unanswered, and prompted it again at its
/// next start, into whatever the terminal's pi was doing by then.
@Suite struct TerminalChatRefusalTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aPromptToADetachedTerminalIsAnsweredWithTheReason() async throws {
        let chatSection = "filechat:\n  user: me\n  allowedUsers: [me]\n"
        try await SessionHome.with(SessionConfig(extraYAML: chatSection)) { s in
            try s.home.installFileMessenger()
            let daemon = try await s.start()
            _ = try await daemon.waitForRunning("filechat", timeout: .seconds(60))
            let terminal = try ScriptedTerminal(socket: s.home.socketPath)
            _ = try await terminal.attach(piSessionID: TerminalSessionTests.piSessionID, cwd: s.project)

            let chat = FileChat(home: s.home)
            try await chat.ready()
            try chat.say("/use project")
            try await chat.waitFor("bot: Watching", timeout: .seconds(30))

            terminal.hangUp()
            try await s.waitForState("t-0c5f7f0e3d0e", "offline")
            try chat.say("still there?")
            try await chat.waitFor("not attached", timeout: .seconds(30))
            #expect(
                chat.transcript.contains("bot: ⚠️ project is a terminal session that is not attached right now"),
                "a reply in the chat, not an error to the messenger:\n\(chat.transcript)")
            #expect(!chat.transcript.contains("error: "), "\(chat.transcript)")
        }
    }
}
