import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Pairing (issue 16, points 2 to 5) through everything real: `pi-relayd pair` in a second
/// terminal, the daemon, the discord and telegram plugins against their fakes, a user who is on
/// no allowlist claiming the code, then talking to pi; and the ways a code must fail.
@Suite struct StackPairingTests {
    /// A fresh install: nobody allowed. Alice claims the code in her DM, the terminal shows her
    /// and confirms, she is told, and her prompt reaches pi; `users` lists her; revoked, her next
    /// message is refused.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func aDiscordUserClaimsConfirmsPromptsAndIsRevoked() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            let daemon = try await stack.start(config)
            let dm = try await stack.dmChannel(.alice)
            let terminal = try PairingTerminal(stack.home, messenger: "discord", answer: "y\n")
            let code = try #require(try await terminal.code()["code"]?.stringValue)
            #expect(code.count >= 8)

            try await stack.dm("/pair \(code.lowercased())", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "Waiting for the bot's owner to confirm")
            let done = try await terminal.finish()
            #expect(done.status == 0, "\(done)")
            let claimed = try #require(terminal.events.first { $0["type"] == "claimed" }, "\(done)")
            #expect(claimed["user"]?.stringValue == StackUser.alice.id && claimed["userName"] == "alice", "\(claimed)")
            #expect(done.stderr.contains("Add alice to the discord allowlist? [y/N]"), "\(done)")
            let result = try #require(terminal.events.last)
            #expect(result["paired"] == true && result["user"]?.stringValue == StackUser.alice.id, "\(result)")
            try await stack.waitForBotMessage(in: dm, containing: "✅ Paired")

            let file = stack.home.path + "/state/paired-users.json"
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
            let listed = try await stack.json("users")["users"]?.arrayValue ?? []
            #expect(
                listed.contains { $0["id"]?.stringValue == StackUser.alice.id && $0["source"] == "paired" && $0["messenger"] == "discord" },
                "\(listed)")

            // Let in at once, with no restart: a session, then a prompt that reaches pi.
            try await stack.dm("/new \(stack.workspace) paired", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "Started paired")
            try await stack.waitForState("paired", "idle")
            try await stack.dm("hello from a paired user", from: .alice)
            try await stack.waitForPiPrompt(containing: "hello from a paired user")

            // Kept across a restart: the daemon reads the file, the plugin gets her in its welcome.
            let (exit, forced) = await daemon.terminate()
            #expect(exit == .exited(0) && !forced)
            try await stack.start(config, freshCommands: false)
            try await stack.waitForState("paired", "idle")
            try await stack.dm("hello after a restart", from: .alice)
            try await stack.waitForPiPrompt(containing: "hello after a restart")

            // What she set up goes with her: her DM watches nothing, her schedule is gone.
            try await stack.dm("/schedule every 1h look at the build", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "Scheduled #1")
            let revoked = try await stack.cli(["users", "revoke", StackUser.alice.id])
            #expect(revoked.status == 0 && revoked.stdout.contains("revoked alice"), "\(revoked)")
            #expect(revoked.stdout.contains("their direct messages watch no session now (1)"), "\(revoked)")
            #expect(revoked.stdout.contains("removed the schedules they made: #1"), "\(revoked)")
            #expect(try await stack.json("schedule", "list") == [])
            let sent = try await stack.cli(["send", "paired", "the owner's own prompt"])
            #expect(sent.status == 0, "\(sent)")
            try await stack.waitForPiPrompt(containing: "the owner's own prompt")
            try await stack.waitForState("paired", "idle")
            try await Task.sleep(for: .seconds(1))
            let shown = try await stack.botMessages(dm).filter { $0["content"]?.stringValue?.contains("the owner's own prompt") == true }
            #expect(shown.isEmpty, "a revoked user's DM still gets the session's output: \(shown)")
            try await stack.dm("after the revocation", from: .alice)
            try await stack.waitForBotMessage(in: dm, containing: "Not authorized.")
            try await Task.sleep(for: .seconds(1))
            #expect(stack.piPrompts(containing: "after the revocation").isEmpty)
            let again = try await stack.cli(["users", "revoke", StackUser.alice.id])
            #expect(again.status == 1 && again.stderr.contains("no paired user"), "\(again)")
        }
    }

    /// Five wrong codes void the code (the terminal says so) and the right one no longer works;
    /// a code posted in a guild channel is refused with a reply and voided too; declining at the
    /// terminal adds nobody; an expired code, a replaced one and one whose terminal went away
    /// are refused.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func wrongCodesAGroupClaimAndADeclineLetNobodyIn() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.allowedUsers = []
            config.channels = [(id: StackHome.general, cwd: stack.workspace, name: "general")]
            try await stack.start(config)
            let dm = try await stack.dmChannel(.mallory)

            let first = try PairingTerminal(stack.home, messenger: "discord")
            let code = try #require(try await first.code()["code"]?.stringValue)
            for attempt in 1...5 {
                try await stack.dm("/pair WRONGCODE\(attempt)", from: .mallory)
                try await stack.waitForBotMessage(in: dm, containing: "That code is not valid", count: attempt)
            }
            let voided = try await first.finish()
            #expect(voided.status == 1 && voided.stdout.contains("five wrong tries"), "\(voided)")
            try await stack.dm("/pair \(code)", from: .mallory)
            try await stack.waitForBotMessage(in: dm, containing: "That code is not valid", count: 6)

            let second = try PairingTerminal(stack.home, messenger: "discord")
            let shown = try #require(try await second.code()["code"]?.stringValue)
            try await stack.say("/pair \(shown)", in: StackHome.general, from: .mallory)
            try await stack.waitForBotMessage(in: StackHome.general, containing: "Pairing works only in a direct message")
            let group = try await second.finish()
            #expect(group.status == 1 && group.stdout.contains("group chat"), "\(group)")
            try await stack.dm("/pair \(shown)", from: .mallory)
            try await stack.waitForBotMessage(in: dm, containing: "That code is not valid", count: 7)

            let third = try PairingTerminal(stack.home, messenger: "discord", answer: "n\n")
            let declined = try #require(try await third.code()["code"]?.stringValue)
            try await stack.dm("/pair \(declined)", from: .mallory)
            let refused = try await third.finish()
            #expect(refused.status == 1 && terminalEvents(third).last?["paired"] == false, "\(refused)")
            try await stack.waitForBotMessage(in: dm, containing: "did not confirm")
            let listed = try await stack.json("users")["users"]?.arrayValue ?? []
            #expect(listed.isEmpty, "\(listed)")
            try await stack.dm("let me in anyway", from: .mallory)
            try await stack.waitForBotMessage(in: dm, containing: "Not authorized.")

            let short = try PairingTerminal(stack.home, messenger: "discord", options: ["--ttl-seconds", "1"])
            let stale = try #require(try await short.code()["code"]?.stringValue)
            let expired = try await short.finish()
            #expect(expired.status == 1 && expired.stdout.contains("expired"), "\(expired)")
            try await stack.dm("/pair \(stale)", from: .mallory)
            try await stack.waitForBotMessage(in: dm, containing: "That code is not valid", count: 8)

            // A newer pair replaces the code; a terminal that goes away withdraws its own.
            let older = try PairingTerminal(stack.home, messenger: "discord")
            let replacedCode = try #require(try await older.code()["code"]?.stringValue)
            let newer = try PairingTerminal(stack.home, messenger: "discord")
            let withdrawn = try #require(try await newer.code()["code"]?.stringValue)
            let replaced = try await older.finish()
            #expect(replaced.status == 1 && replaced.stdout.contains("replaced this code"), "\(replaced)")
            newer.process.signalGroup(SIGKILL)
            _ = try await newer.finish()
            try await waitUntil("the daemon saw the terminal go", timeout: .seconds(30)) {
                stack.home.daemonLog.contains("went away; the code is withdrawn")
            }
            for (index, gone) in [replacedCode, withdrawn].enumerated() {
                try await stack.dm("/pair \(gone)", from: .mallory)
                try await stack.waitForBotMessage(in: dm, containing: "That code is not valid", count: 9 + index)
            }
        }
    }

    private func terminalEvents(_ terminal: PairingTerminal) -> [JSONValue] { terminal.events }

    /// Telegram: the t.me deep link (and its QR code) carries the code; the Start button sends
    /// `/start CODE`, which pairs a user on no allowlist once the terminal confirms. An expired
    /// code is refused, five wrong ones void a code, `--yes` adds without asking, and a claim in
    /// a group is refused.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func aTelegramUserPairsThroughTheStartLink() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            let mallory = TelegramStack.mallory
            let terminal = try PairingTerminal(stack.home, messenger: "telegram", answer: "y\n", json: false)
            let link = try await waitFor("the deep link", timeout: .seconds(60)) {
                terminal.process.stdout.split(separator: "\n").first { $0.contains("https://t.me/pirelay_test_bot?start=") }
            }
            let code = try #require(link.components(separatedBy: "?start=").last?.trimmingCharacters(in: .whitespaces))
            #expect(code.count == 10, "\(link)")
            #expect(terminal.process.stdout.contains("▀") || terminal.process.stdout.contains("▄"), "a QR code is drawn: \(terminal.process.stdout)")
            #expect(terminal.process.stdout.contains("/pair \(code)"))

            try await stack.dm("/start \(code)", from: mallory)
            try await stack.waitForBotMessage(in: mallory.id, containing: "Waiting for the bot's owner to confirm")
            try await stack.waitForBotMessage(in: mallory.id, containing: "Paired")
            let done = try await terminal.finish()
            #expect(done.stdout.contains("Claimed by mallory (id \(mallory.id)) on telegram."), "\(done)")
            #expect(done.status == 0 && done.stdout.contains("✓ mallory (\(mallory.id)) can now use telegram"), "\(done)")

            try await stack.dm("/new \(stack.workspace) tgpair", from: mallory)
            try await stack.waitForBotMessage(in: mallory.id, containing: "Started tgpair")
            try await stack.dm("hello from telegram pairing", from: mallory)
            _ = try await waitFor("pi received the paired user's prompt", timeout: .seconds(60)) {
                stack.piPrompts(containing: "hello from telegram pairing").first
            }

            // A code that expired: the terminal says so, and the code is refused afterwards.
            let short = try PairingTerminal(stack.home, messenger: "telegram", options: ["--ttl-seconds", "2"])
            let stale = try #require(
                try await waitFor("a code", timeout: .seconds(60)) { short.events.first { $0["type"] == "code" } }["code"]?.stringValue)
            let expired = try await short.finish()
            #expect(expired.status == 1 && expired.stdout.contains("expired"), "\(expired)")
            try await stack.dm("/pair \(stale)", from: TelegramStack.bob)
            try await stack.waitForBotMessage(in: TelegramStack.bob.id, containing: "You can already use this bot")
            let stranger = (id: "777000777", name: "trudy")
            try await stack.dm("/pair \(stale)", from: stranger)
            try await stack.waitForBotMessage(in: stranger.id, containing: "That code is not valid")

            // Five wrong tries void a code; with --yes the right one would have let her in unasked.
            let guessed = try PairingTerminal(stack.home, messenger: "telegram", options: ["--yes"])
            let right = try #require(try await guessed.code()["code"]?.stringValue)
            for attempt in 1...5 {
                try await stack.dm("/pair GUESS\(attempt)", from: stranger)
                try await stack.waitForBotMessage(in: stranger.id, containing: "That code is not valid", count: attempt + 1)
            }
            let voided = try await guessed.finish()
            #expect(voided.status == 1 && voided.stdout.contains("five wrong tries"), "\(voided)")
            try await stack.dm("/start \(right)", from: stranger)
            try await stack.waitForBotMessage(in: stranger.id, containing: "That code is not valid", count: 7)
            let quick = try PairingTerminal(stack.home, messenger: "telegram", options: ["--yes"])
            let granted = try #require(try await quick.code()["code"]?.stringValue)
            try await stack.dm("/pair \(granted)", from: stranger)
            try await stack.waitForBotMessage(in: stranger.id, containing: "✅ Paired")
            let added = try await quick.finish()
            #expect(added.status == 0 && quick.events.last?["paired"] == true, "\(added)")

            // A claim in a group is refused there, and voids the code.
            let grouped = try PairingTerminal(stack.home, messenger: "telegram")
            let posted = try #require(try await grouped.code()["code"]?.stringValue)
            try await stack.say("/pair \(posted)", in: "-1001234567890", from: stranger)
            try await stack.waitForBotMessage(in: "-1001234567890", containing: "Pairing works only in a direct message")
            let refused = try await grouped.finish()
            #expect(refused.status == 1 && refused.stdout.contains("group chat"), "\(refused)")

            // Revoked: refused from the next message on.
            let revoked = try await stack.cli(["users", "revoke", mallory.id, "--json"])
            #expect(revoked.status == 0, "\(revoked)")
            try await stack.dm("after revoke", from: mallory)
            try await stack.waitForBotMessage(in: mallory.id, containing: "Not authorized.")
            #expect(stack.piPrompts(containing: "after revoke").isEmpty)
        }
    }

    /// `pi-relayd pair telegram --session NAME --label L` (seed 002's `/relay connect`): one
    /// `/start CODE` from a new user pairs them and binds their chat to the session under the
    /// label, so their next message is its prompt; without `--yes` once the owner confirms.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func pairingThatBindsTheClaimingChatToASession() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            _ = try await stack.json("new", "--cwd", stack.workspace, "--name", "api")
            let carol = (id: "333000333", name: "carol")
            let terminal = try PairingTerminal(stack.home, messenger: "telegram", options: ["--yes", "--session", "api", "--label", "work"])
            let code = try #require(try await terminal.code()["code"]?.stringValue)
            try await stack.dm("/start \(code)", from: carol)
            try await stack.waitForBotMessage(in: carol.id, containing: "this chat now watches work")
            let done = try await terminal.finish()
            let result = try #require(done.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }.last)
            #expect(result["paired"] == true && result["session"] == "api", "\(done)")

            try await stack.dm("hello from carol", from: carol)
            try await stack.waitForBotMessage(in: carol.id, containing: "Echo: hello from carol")
            #expect(stack.piPrompts(containing: "hello from carol").count == 1)
            try await stack.dm("/sessions", from: carol)
            try await stack.waitForBotMessage(in: carol.id, containing: "work (api)")

            // Confirmed at the terminal: bound once the owner says yes.
            let dave = (id: "444000444", name: "dave")
            let asking = try PairingTerminal(stack.home, messenger: "telegram", answer: "y\n", options: ["--session", "api"], json: false)
            let link = try await waitFor("the deep link", timeout: .seconds(60)) {
                asking.process.stdout.split(separator: "\n").first { $0.contains("?start=") }
            }
            let second = try #require(link.components(separatedBy: "?start=").last?.trimmingCharacters(in: .whitespaces))
            try await stack.dm("/start \(second)", from: dave)
            try await stack.waitForBotMessage(in: dave.id, containing: "this chat now watches api")
            let confirmed = try await asking.finish()
            #expect(confirmed.status == 0 && confirmed.stdout.contains("Their chat watches api."), "\(confirmed)")

            // A session that is not there, and a label without a session, are refused at once.
            let missing = try await stack.cli(["pair", "telegram", "--session", "nosuch", "--yes"])
            #expect(missing.status != 0 && missing.stderr.contains("nosuch"), "\(missing)")
            let stray = try await stack.cli(["pair", "telegram", "--label", "x", "--yes"])
            #expect(stray.status != 0 && stray.stderr.contains("--label goes with --session"), "\(stray)")
        }
    }
}
