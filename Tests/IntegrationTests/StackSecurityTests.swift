import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 6 point 11, who may do what (docs/SECURITY.md): someone not on the allowlist is told
/// "Not authorized." at every entry point and nothing of theirs reaches pi; the bot token never
/// leaves the environment it was given in.
@Suite struct StackSecurityTests {
    static let mallorysWords = ["let me in", "run rm -rf / please", "steal the keys"]

    /// mallory writes a DM, mentions the bot in a bound channel, uses slash commands in both
    /// places and clicks the Yes of an open question: every time "Not authorized.", and pi is
    /// sent none of it (no prompt, no answer, no abort, no new session). alice's own click on
    /// the same question still works afterwards: it was never touched.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func unauthorizedUserIsRefusedAtEveryEntryPoint() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.channels = [(id: StackHome.general, cwd: stack.workspace, name: "general")]
            try await stack.start(config)
            try await stack.waitForState("general", "idle")
            try await stack.say("!scenario ui confirm", in: StackHome.general)
            let question = try await stack.waitForCard(in: StackHome.general, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            let yes = try #require(StackHome.button("Yes", in: question))
            let sessionsBefore = try await stack.sessions().count
            let piBefore = stack.piInput().count

            let malloryDM = try await stack.dmChannel(.mallory)
            try await stack.dm(Self.mallorysWords[0], from: .mallory)
            try await stack.waitForBotMessage(in: malloryDM, containing: "Not authorized.")
            let before = try await stack.fake.cursor
            try await stack.say(Self.mallorysWords[1], in: StackHome.general, from: .mallory)
            let refusal = try #require(try await stack.waitForBotMessage(in: StackHome.general, containing: "Not authorized.", since: before).first)
            #expect(refusal["content"] == "Not authorized.", "nothing about sessions or configuration: \(refusal)")

            var replies: [StackReply] = []
            replies.append(try await stack.command("sessions", in: StackHome.general, from: .mallory))
            replies.append(try await stack.command("stop", in: StackHome.general, from: .mallory))
            replies.append(
                try await stack.command("to", ["session": "general", "text": .string(Self.mallorysWords[2])], in: StackHome.general, from: .mallory))
            replies.append(try await stack.command("new", ["cwd": "/", "name": "evil"], from: .mallory))
            replies.append(try await stack.reply(to: try await stack.click(yes, on: message, from: .mallory)))
            for r in replies {
                #expect(r.text == "Not authorized." && r.ephemeral, "\(r)")
            }

            try await Task.sleep(for: .seconds(1))
            #expect(stack.piInput().count == piBefore, "pi was sent something for mallory: \(stack.piInput().suffix(3))")
            for words in Self.mallorysWords { #expect(stack.piPrompts(containing: words).isEmpty) }
            #expect(stack.piInput("extension_ui_response").isEmpty && stack.piInput("abort").isEmpty)
            #expect(try await stack.sessions().count == sessionsBefore)
            #expect(try await stack.json("questions", "general").arrayValue?.count == 1, "the question is still open")
            let untouched = try await stack.fake.message(message)
            #expect(untouched["components"]?.arrayValue?.isEmpty == false, "the question still has its buttons")

            _ = try await stack.reply(to: try await stack.click(yes, on: message))
            try await stack.waitForBotMessage(in: StackHome.general, containing: "confirm answer: true")
            #expect(stack.piInput("extension_ui_response").count == 1)
        }
    }

    /// The token is given to the daemon in its environment only. After a session, a plugin crash
    /// and restart, and every CLI view of the plugins and logs, it is in no file of the home (logs
    /// at trace level for the plugins, debug for the daemon), in no captured stdout or stderr,
    /// and in nothing the CLI printed; the fake Discord saw it used, so it was really there.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theBotTokenIsNowhereButTheEnvironment() async throws {
        try await StackHome.with { stack in
            let daemon = try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "t"])
            try await stack.dm("a prompt about DISCORD_BOT_TOKEN")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: a prompt about")

            let pid = try await stack.discordPid(daemon)
            let since = try await stack.fake.cursor
            #expect(kill(pid, SIGKILL) == 0)
            try await stack.waitForGateway(since: since)
            for arguments in [
                ["status", "--json"], ["plugins", "--json"], ["logs", "discord"], ["logs", "pi-relayd"],
                ["plugin", "call", "discord", "status", "{}"], ["sessions"],
            ] {
                let r = try await stack.cli(arguments)
                #expect(r.status == 0, "\(r)")
            }
            let identified = try await stack.fake.get("/frames?dir=in&op=2")["frames"]?.arrayValue ?? []
            #expect(
                !identified.isEmpty && identified.allSatisfy { $0["text"]?.stringValue?.contains("<redacted>") == true },
                "the plugin identified with the right token (the fake records it redacted): \(identified.count) identifies")
            #expect(!stack.home.pluginLog("discord").isEmpty)
            stack.expectTokenNowhere()
        }
    }

    /// An empty allowlist refuses everyone (some bridges let everyone in then; this one does
    /// not): alice's DM and her slash command are both "Not authorized.", nothing reaches pi,
    /// and the discord plugin's log says at start why.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anEmptyAllowlistRefusesEveryone() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            try await stack.start(config)
            _ = try await stack.newSession("locked")
            let dm = try await stack.dmChannel()
            try await stack.dm("let me in, I am alice")
            try await stack.waitForBotMessage(in: dm, containing: "Not authorized.")
            let use = try await stack.command("use", ["session": "locked"])
            #expect(use.text == "Not authorized." && use.ephemeral, "\(use)")
            #expect(stack.piPrompts(containing: "let me in").isEmpty)
            #expect(stack.home.pluginLog("discord").contains("the allowlist is empty"), "the plugin warned at start")
        }
    }

    /// `DISCORD_ALLOWED_USERS` (comma-separated, as pidash reads it) adds to the config's list:
    /// with an empty list in config.yaml and bob in the variable, bob is answered and alice is not.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theAllowlistVariableLetsItsUsersIn() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            try await stack.start(config, environment: ["DISCORD_ALLOWED_USERS": " \(StackUser.bob.id), "])
            let bobDM = try await stack.dmChannel(.bob)
            let aliceDM = try await stack.dmChannel(.alice)
            let made = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "bobs"], from: .bob)
            #expect(made.text.contains("Started bobs"), "\(made)")
            try await stack.dm("hello from bob", from: .bob)
            try await stack.waitForBotMessage(in: bobDM, containing: "Echo: hello from bob")
            try await stack.dm("and alice?", from: .alice)
            try await stack.waitForBotMessage(in: aliceDM, containing: "Not authorized.")
            #expect(stack.piPrompts(containing: "and alice?").isEmpty)
        }
    }
}
