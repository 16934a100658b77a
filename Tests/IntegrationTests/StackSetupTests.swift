import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd setup` (issue 16, point 1) through the real CLI and the real messenger plugins,
/// against the fake Discord and the fake Telegram: the token is checked by the plugin, saved in
/// .env (0600, other lines kept) only when the service accepts it, and never printed.
@Suite struct StackSetupTests {
    static let discordToken = "SETUP.MTQ0MDAwMDAwMDAwMDA.Gx7Kp2.sEtUpToKeNdIsCoRd0"
    static let telegramToken = "7000000001:SETUPtelegramSecretZ1y2x3w4v5u6t7"

    /// A home with only `plugin` installed and its section pointing at `apiBase`.
    static func prepare(_ home: TestHome, plugin: String, apiBase: String, env: String = "") throws {
        try FileManager.default.createSymbolicLink(
            atPath: home.pluginsDir + "/" + plugin, withDestinationPath: BuildProducts.executable("pi-relay-" + plugin))
        try home.writeConfig("\(plugin):\n  apiBase: \(StackConfig.quoted(apiBase))\n")
        if !env.isEmpty { try home.writeFile(".env", env, mode: 0o600) }
    }

    /// Runs `body`, then stops the fake whatever happened.
    static func with(_ fake: StackFake, _ body: () async throws -> Void) async throws {
        do { try await body() } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    static let quiet = ["NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"]

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    static func expectNoToken(_ token: String, in results: [CLIResult], sourceLocation: SourceLocation = #_sourceLocation) {
        for result in results {
            for needle in [token, String(token.suffix(12))] {
                #expect(
                    !result.stdout.contains(needle) && !result.stderr.contains(needle), "token printed by \(result.arguments)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func discordTokenIsCheckedThroughThePluginAndSaved() async throws {
        try await TestHome.with { home in
            let fake = try await StackFake.discord(
                folder: home.scratch, arguments: ["--token", Self.discordToken, "--bot-user-id", StackHome.bot, "--bot-name", "relay-setup-bot"])
            try await Self.with(fake) {
                try Self.prepare(home, plugin: "discord", apiBase: fake.apiBase, env: "# mine\nHTTPS_PROXY_NOTE=kept\nDISCORD_BOT_TOKEN=old\n")

                let first = try await home.run(["setup", "discord", "--token-stdin"], input: Self.discordToken + "\n", extra: Self.quiet)
                #expect(first.status == 0, "\(first)")
                #expect(first.stdout.contains("✓ Discord accepted the token: bot relay-setup-bot"), "\(first)")
                #expect(
                    first.stdout.contains(
                        "https://discord.com/oauth2/authorize?client_id=\(StackHome.bot)&scope=bot+applications.commands&permissions=309237746688"),
                    "\(first)")
                #expect(first.stdout.contains("Message Content intent"), "\(first)")
                let dotenv = home.path + "/.env"
                #expect(Self.mode(dotenv) == 0o600)
                let saved = home.read(".env")
                #expect(saved == "# mine\nHTTPS_PROXY_NOTE=kept\nDISCORD_BOT_TOKEN=\(Self.discordToken)\n", "\(saved)")
                // Through the plugin, and only the checks: no gateway session was opened.
                #expect(try await fake.wait("for=request&method=GET&path=/users/@me&status=200", timeout: 5) != nil)
                #expect(try await fake.wait("for=ready", timeout: 1) == nil, "setup must not go online")

                // Again, the token from the environment this time: same file, one line for the token.
                let second = try await home.cli(extra: Self.quiet.merging(["DISCORD_BOT_TOKEN": Self.discordToken]) { $1 }).run(
                    ["setup", "discord", "--json"])
                #expect(second.status == 0, "\(second)")
                let report = try second.json()
                #expect(
                    report["bot"]?["id"]?.stringValue == StackHome.bot && report["bot"]?["applicationId"]?.stringValue == StackHome.bot, "\(report)")
                #expect(home.read(".env") == saved)
                #expect(Self.mode(dotenv) == 0o600)

                // An app without the Message Content intent: setup says where to switch it on. The
                // shell has the variable set but empty, which would hide the saved token from a
                // daemon started there: setup says so.
                try await fake.post("/config", ["message_content_enabled": false])
                let third = try await home.run(
                    ["setup", "discord", "--token-stdin"], input: Self.discordToken, extra: Self.quiet.merging(["DISCORD_BOT_TOKEN": ""]) { $1 })
                #expect(third.status == 0 && third.stdout.contains("Switch on the Message Content intent"), "\(third)")
                #expect(
                    third.stdout.contains("✗ DISCORD_BOT_TOKEN is set but empty in this shell, and the environment wins over .env"), "\(third)")
                #expect(!first.stdout.contains("set but empty"), "\(first)")
                Self.expectNoToken(Self.discordToken, in: [first, second, third])
                #expect(try await fake.violations().isEmpty)
            }
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aBadDiscordTokenIsRefusedAndNothingIsWritten() async throws {
        try await TestHome.with { home in
            let fake = try await StackFake.discord(folder: home.scratch, arguments: ["--token", Self.discordToken])
            try await Self.with(fake) {
                try Self.prepare(home, plugin: "discord", apiBase: fake.apiBase)
                let wrong = "WRONG.MTQ0MDAwMDAwMDAwMDA.Gx7Kp2.nOtThEtOkEnAtAlL9"
                let refused = try await home.run(["setup", "discord", "--token-stdin"], input: wrong, extra: Self.quiet)
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.stderr.contains("Discord refused the bot token (401 Unauthorized)"), "\(refused)")
                #expect(refused.stderr.contains("Nothing was saved"), "\(refused)")
                #expect(!FileManager.default.fileExists(atPath: home.path + "/.env"))
                let json = try await home.run(["setup", "discord", "--token-stdin", "--json"], input: wrong, extra: Self.quiet)
                let failure = try json.json()
                #expect(json.status == 1 && failure["error"]?["code"] == "error", "\(json)")
                let empty = try await home.run(["setup", "discord", "--token-stdin"], input: "\n", extra: Self.quiet)
                #expect(empty.status == 1 && empty.stderr.contains("standard input was empty"), "\(empty)")
                let noTerminal = try await home.run(["setup", "discord"], input: "", extra: Self.quiet)
                #expect(noTerminal.status == 1 && noTerminal.stderr.contains("--token-stdin"), "\(noTerminal)")
                let unknown = try await home.run("setup", "matrix")
                // Setup knows the installed messengers whose hello declares a setup: here, discord.
                #expect(unknown.status == 1 && unknown.stderr.contains("unknown messenger matrix: setup knows discord"), "\(unknown)")
                #expect(!FileManager.default.fileExists(atPath: home.path + "/.env"))
                Self.expectNoToken(wrong, in: [refused, json])
            }
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func telegramTokenIsCheckedWithGetMeAndSaved() async throws {
        try await TestHome.with { home in
            let fake = try await StackFake.telegram(folder: home.scratch, arguments: ["--token", Self.telegramToken])
            try await Self.with(fake) {
                try Self.prepare(home, plugin: "telegram", apiBase: fake.apiBase)

                let wrong = "7000000001:WRONGtelegramSecretAAAAAAAAAAAAAA"
                let refused = try await home.run(["setup", "telegram", "--token-stdin"], input: wrong, extra: Self.quiet)
                #expect(refused.status == 1 && refused.stderr.contains("Telegram refused the bot token"), "\(refused)")
                #expect(!FileManager.default.fileExists(atPath: home.path + "/.env"))

                let good = try await home.run(["setup", "telegram", "--token-stdin"], input: Self.telegramToken, extra: Self.quiet)
                #expect(good.status == 0, "\(good)")
                #expect(good.stdout.contains("✓ Telegram accepted the token: bot pi relay (@pirelay_test_bot)"), "\(good)")
                #expect(good.stdout.contains("https://t.me/pirelay_test_bot"), "\(good)")
                #expect(home.read(".env") == "TELEGRAM_BOT_TOKEN=\(Self.telegramToken)\n")
                #expect(Self.mode(home.path + "/.env") == 0o600)
                // Typed at the prompt, which does not echo it.
                let typed = try await TypedAtATerminal.run(
                    home, ["setup", "telegram"], prompt: "Telegram bot token from @BotFather", typed: Self.telegramToken, extra: Self.quiet)
                #expect(typed.exit == .exited(0), "\(typed.shown)")
                #expect(typed.shown.contains("✓ Telegram accepted the token"), "\(typed.shown)")
                #expect(
                    !typed.shown.contains(Self.telegramToken) && !typed.shown.contains(String(Self.telegramToken.suffix(12))), "the token was echoed")
                let again = try await home.run(["setup", "telegram", "--token-stdin"], input: Self.telegramToken, extra: Self.quiet)
                #expect(again.status == 0 && home.read(".env") == "TELEGRAM_BOT_TOKEN=\(Self.telegramToken)\n", "\(again)")
                // Only getMe: setup neither polls nor touches the webhook or the command menu.
                let calls = try await fake.get("/requests")["requests"]?.arrayValue?.compactMap { $0["method"]?.stringValue } ?? []
                #expect(!calls.contains("getUpdates") && !calls.contains("deleteWebhook"), "\(calls)")
                Self.expectNoToken(Self.telegramToken, in: [good, again])
                Self.expectNoToken(wrong, in: [refused])
                #expect(try await fake.violations().isEmpty)
            }
        }
    }
}
