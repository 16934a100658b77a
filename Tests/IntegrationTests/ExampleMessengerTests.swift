import Foundation
import Testing

/// examples/file-messenger.py, a messenger written from docs/PROTOCOL.md alone, under the real
/// daemon with the fake pi: a chat line binds and prompts a session, the answer streams into
/// the transcript and arrives whole, and a question is answered with a plain reply.
@Suite struct ExampleMessengerTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theFileMessengerPromptsWatchesAndAnswersAQuestion() async throws {
        try await TestHome.with { home in
            let agent = home.path + "/agent", workspace = home.path + "/work"
            for dir in [agent, workspace] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            try home.writeConfig(
                TestConfig().yaml + """
                    pi:
                      command: \(E2EConfig.fakePi)
                      agentDir: \(agent)
                      startTimeoutSeconds: 60
                    filechat:
                      user: me
                      allowedUsers: [me]

                    """)
            try home.installFileMessenger()
            let formatter = BuildProducts.executable("pi-relay-formatter")
            try FileManager.default.createSymbolicLink(atPath: home.pluginsDir + "/formatter", withDestinationPath: formatter)
            let daemon = try await home.startDaemon()
            _ = try await daemon.waitForRunning("filechat", timeout: .seconds(60))
            _ = try await daemon.waitForRunning("formatter", timeout: .seconds(60))
            let created = try await home.run("new", "--cwd", workspace, "--name", "demo")
            #expect(created.status == 0, "\(created)")

            let chat = home.path + "/state/plugins/filechat"
            func say(_ text: String) throws {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: chat + "/in.txt"))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data((text + "\n").utf8))
                try handle.close()
            }
            func transcript() -> String { (try? String(contentsOfFile: chat + "/transcript.txt", encoding: .utf8)) ?? "" }
            func waitFor(_ text: String) async throws {
                try await waitUntil("the transcript shows \(text)", timeout: .seconds(60)) { transcript().contains(text) }
            }

            try await waitUntil("the messenger made its inbox", timeout: .seconds(20)) {
                FileManager.default.fileExists(atPath: chat + "/in.txt")
            }
            try say("/use demo")
            try await waitFor("bot: Watching demo")

            try say("!scenario slow 20 100")
            try await waitFor("live [")
            try await waitFor("bot (final):")
            #expect(transcript().contains("bot (final):\nchunk 1 chunk 2"), "\(transcript())")

            try say("!scenario ui confirm")
            try await waitFor("question: ")
            try say("yes")
            try await waitFor("confirm answer: true")
            try await waitFor("question closed: me (filechat) answered: yes")
        }
    }
}
