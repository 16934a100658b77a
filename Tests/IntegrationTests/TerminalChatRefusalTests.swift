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

            let chat = s.home.path + "/state/plugins/filechat"
            try await waitUntil("the messenger made its inbox", timeout: .seconds(20)) {
                FileManager.default.fileExists(atPath: chat + "/in.txt")
            }
            func say(_ text: String) throws {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: chat + "/in.txt"))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data((text + "\n").utf8))
                try handle.close()
            }
            func transcript() -> String { (try? String(contentsOfFile: chat + "/transcript.txt", encoding: .utf8)) ?? "" }
            try say("/use project")
            try await waitUntil("the chat watches the terminal session", timeout: .seconds(30)) { transcript().contains("bot: Watching") }

            terminal.hangUp()
            try await s.waitForState("t-0c5f7f0e3d0e", "offline")
            try say("still there?")
            try await waitUntil("the chat is told", timeout: .seconds(30)) { transcript().contains("not attached") }
            #expect(
                transcript().contains("bot: ⚠️ project is a terminal session that is not attached right now"),
                "a reply in the chat, not an error to the messenger:\n\(transcript())")
            #expect(!transcript().contains("error: "), "\(transcript())")
        }
    }
}
