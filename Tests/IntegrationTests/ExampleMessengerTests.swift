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

            let chat = FileChat(home: home)
            try await chat.ready()
            try chat.say("/use demo")
            try await chat.waitFor("bot: Watching demo")

            try chat.say("!scenario slow 20 100")
            try await chat.waitFor("live [")
            try await chat.waitFor("bot (final):")
            #expect(chat.transcript.contains("bot (final):\nchunk 1 chunk 2"), "\(chat.transcript)")

            try chat.say("!scenario ui confirm")
            try await chat.waitFor("question: ")
            try chat.say("yes")
            try await chat.waitFor("confirm answer: true")
            try await chat.waitFor("question closed: me (filechat) answered: yes")
        }
    }
}
