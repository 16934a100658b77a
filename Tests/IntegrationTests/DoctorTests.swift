import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd doctor` (issue 16, point 6) through the real CLI, the real discord plugin against
/// the fake Discord, the fake pi and the real daemon: every check passes on a healthy home, and
/// each fails once, with its fix.
@Suite struct DoctorTests {
    static let token = "DOCTOR.MTQ0MDAwMDAwMDAwMDA.Gx7Kp2.dOcToRtOkEn0000"

    /// The checks of a `doctor --json` run, by id.
    static func checks(_ result: CLIResult) throws -> [String: JSONValue] {
        var byID: [String: JSONValue] = [:]
        for check in try result.json()["checks"]?.arrayValue ?? [] {
            if let id = check["id"]?.stringValue { byID[id] = check }
        }
        return byID
    }

    /// A home with these bundled plugins installed (linked, as a real install has them), and a
    /// CLI that finds no pi.
    static func withInstalled(_ plugins: [String], _ body: (TestHome, CLI) async throws -> Void) async throws {
        try await TestHome.with { home in
            let cli = home.cli(extra: ["PI_CODING_AGENT_DIR": home.scratch + "/agent", "PATH": "/usr/bin:/bin"])
            for plugin in plugins {
                try FileManager.default.createSymbolicLink(
                    atPath: home.pluginsDir + "/" + plugin, withDestinationPath: BuildProducts.executable("pi-relay-" + plugin))
            }
            try await body(home, cli)
        }
    }

    static func expectPassed(
        _ checks: [String: JSONValue], _ id: String, detail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let check = checks[id]
        #expect(check?["passed"] == true, "\(id): \(String(describing: check))", sourceLocation: sourceLocation)
        #expect(check?["detail"]?.stringValue?.contains(detail) == true, "\(id) detail: \(String(describing: check))", sourceLocation: sourceLocation)
    }

    static func expectFailed(
        _ checks: [String: JSONValue], _ id: String, detail: String, fix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let check = checks[id]
        #expect(check?["passed"] == false, "\(id): \(String(describing: check))", sourceLocation: sourceLocation)
        #expect(check?["detail"]?.stringValue?.contains(detail) == true, "\(id) detail: \(String(describing: check))", sourceLocation: sourceLocation)
        #expect(check?["fix"]?.stringValue?.contains(fix) == true, "\(id) fix: \(String(describing: check))", sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aHealthyHomePassesEveryCheckAndEachProblemIsNamedWithItsFix() async throws {
        try await TestHome.with { home in
            let fake = try await StackFake.discord(
                folder: home.scratch,
                arguments: ["--token", Self.token, "--bot-user-id", StackHome.bot, "--bot-name", "relay-doctor-bot", "--guild", StackHome.guild])
            try await StackSetupTests.with(fake) {
                let agentDir = home.scratch + "/agent"
                let environment = StackSetupTests.quiet.merging(["PI_CODING_AGENT_DIR": agentDir]) { $1 }
                let cli = home.cli(extra: environment)
                try FileManager.default.createSymbolicLink(
                    atPath: home.pluginsDir + "/discord", withDestinationPath: BuildProducts.executable("pi-relay-discord"))
                // Telegram is installed but nobody set it up: not configured on purpose, which passes.
                try FileManager.default.createSymbolicLink(
                    atPath: home.pluginsDir + "/telegram", withDestinationPath: BuildProducts.executable("pi-relay-telegram"))
                let config = """
                    pi:
                      command: \(E2EConfig.fakePi)
                      agentDir: \(agentDir)
                    discord:
                      apiBase: \(StackConfig.quoted(fake.apiBase))
                      allowedUsers: ["\(StackUser.alice.id)"]

                    """
                try home.writeConfig(config)
                try home.writeFile(".env", "DISCORD_BOT_TOKEN=\(Self.token)\n", mode: 0o600)
                #expect(try await cli.run(["extension", "install"]).status == 0)
                let daemon = try await home.startDaemon(environment: environment)
                try await daemon.waitForRunning("discord", timeout: .seconds(60))
                try await daemon.waitForPlugin("telegram", "is not configured", timeout: .seconds(30)) { $0.state == "not-configured" }

                let healthy = try await cli.run(["doctor", "--json", "--min-free-mb", "1"], timeout: .seconds(120))
                let passed = try Self.checks(healthy)
                #expect(healthy.status == 0, "\(healthy)")
                #expect(passed.values.allSatisfy { $0["passed"] == true }, "\(passed.values.filter { $0["passed"] != true })")
                for id in [
                    "config", "pi", "pi-rpc", "messenger:discord", "allowlist:discord", "mode:home", "mode:.env", "mode:config.yaml",
                    "mode:state folder", "mode:control socket", "disk", "daemon", "plugin:discord", "extension",
                ] {
                    #expect(passed[id] != nil, "no \(id) check: \(passed.keys.sorted())")
                }
                #expect(passed["messenger:discord"]?["detail"]?.stringValue?.contains("relay-doctor-bot") == true)
                #expect(
                    passed["plugin:telegram"]?["detail"]?.stringValue?.contains("not set up") == true,
                    "\(String(describing: passed["plugin:telegram"]))")
                let text = try await cli.run(["doctor", "--min-free-mb", "1"], timeout: .seconds(120))
                #expect(text.stdout.contains("✓ pi --mode rpc: answers get_state") && text.stdout.contains("checks passed"), "\(text)")

                // An app whose Message Content intent is off, and whose slash commands are gone (as
                // another client of the same app could leave them): the plugin names both.
                try await fake.post("/config", ["message_content_enabled": false])
                // Everything @everyone has but Attach Files (bit 15).
                try await fake.post("/config", ["bot_guild_permissions": .string(String(2_248_473_465_835_073 & ~(1 << 15)))])
                let wiped = try LoopbackHTTP.request(
                    port: fake.port,
                    "PUT /api/v10/applications/\(StackHome.bot)/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bot \(Self.token)\r\n"
                        + "User-Agent: DiscordBot (https://example.invalid/doctor-test, 1)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 2\r\nConnection: close\r\n\r\n[]")
                #expect(wiped.status == 200, "\(wiped.head)")
                let intents = try Self.checks(try await cli.run(["doctor", "--json", "--min-free-mb", "1"], timeout: .seconds(120)))
                Self.expectFailed(intents, "messenger:discord:1", detail: "Message Content intent", fix: "Privileged Gateway Intents")
                Self.expectFailed(
                    intents, "messenger:discord:2", detail: "Slash commands missing globally: /", fix: "pi-relayd plugins restart discord")
                Self.expectFailed(intents, "messenger:discord:3", detail: "the bot lacks: Attach Files.", fix: "Give its role these permissions")
                try await fake.post("/config", ["message_content_enabled": true, "bot_guild_permissions": "2248473465835073"])

                // Now break each thing once. A pi that never answers; a plugin that is not configured.
                let hung = home.scratch + "/hung-pi"
                try "#!/bin/sh\n[ \"$1\" = --version ] && { echo 0.58.3; exit 0; }\nexec sleep 60\n".write(
                    toFile: hung, atomically: true, encoding: .utf8)
                chmod(hung, 0o755)
                // A pi that never answers, and nobody on the allowlist (config.yaml readable by others too).
                try home.writeConfig(
                    config.replacingOccurrences(of: E2EConfig.fakePi, with: hung)
                        .replacingOccurrences(of: "  allowedUsers: [\"\(StackUser.alice.id)\"]\n", with: ""))
                chmod(home.path + "/config.yaml", 0o644)
                let broken = home.scratch + "/broken-plugin"
                try "#!/bin/sh\necho 'broken: no BROKEN_TOKEN set' >&2\nexit 78\n".write(toFile: broken, atomically: true, encoding: .utf8)
                chmod(broken, 0o755)
                try FileManager.default.createSymbolicLink(atPath: home.pluginsDir + "/broken", withDestinationPath: broken)
                _ = try await cli.run(["plugins", "reload"])
                try await daemon.waitForPlugin("broken", "is not configured", timeout: .seconds(30)) { $0.state == "not-configured" }
                try home.writeFile(".env", "DISCORD_BOT_TOKEN=not-\(Self.token)\n", mode: 0o600)
                chmod(home.path, 0o755)
                chmod(home.path + "/state", 0o750)
                try FileManager.default.removeItem(atPath: agentDir + "/extensions/pi-relayd")

                let sick = try await cli.run(["doctor", "--json", "--min-free-mb", "100000000"], timeout: .seconds(120))
                #expect(sick.status == 1, "\(sick)")
                let failed = try Self.checks(sick)
                Self.expectFailed(failed, "pi-rpc", detail: "no answer within 10 s", fix: "--mode rpc")
                Self.expectFailed(failed, "messenger:discord", detail: "refused the bot token", fix: "pi-relayd setup discord with a new token")
                Self.expectFailed(failed, "mode:home", detail: "is 755", fix: "chmod 700 \(home.path)")
                Self.expectFailed(failed, "mode:state folder", detail: "is 750", fix: "chmod 700 \(home.path)/state")
                // What the loader takes, with no secret in it: recommended 600, not failed.
                Self.expectPassed(failed, "mode:config.yaml", detail: "is 644: readable by others, so keep secrets in .env")
                Self.expectFailed(failed, "allowlist:discord", detail: "nobody may use the bot", fix: "pi-relayd pair discord")
                Self.expectFailed(failed, "disk", detail: "MB free", fix: "free some space")
                Self.expectFailed(failed, "plugin:broken", detail: "not configured", fix: "pi-relayd plugins restart broken")
                Self.expectPassed(failed, "extension", detail: "not installed at")
                #expect(failed["pi"]?["passed"] == true, "the hung pi still says its version")
                StackSetupTests.expectNoToken(Self.token, in: [healthy, text, sick])
                chmod(home.path, 0o700)
                chmod(home.path + "/state", 0o700)

                // The refused token exported in the shell, which wins over .env: `setup` would
                // check that same token again, so the fix is to unset it first.
                let exported = home.cli(extra: environment.merging(["DISCORD_BOT_TOKEN": "not-\(Self.token)"]) { $1 })
                let shell = try Self.checks(try await exported.run(["doctor", "--json"], timeout: .seconds(120)))
                Self.expectFailed(shell, "messenger:discord", detail: "refused the bot token", fix: "unset DISCORD_BOT_TOKEN")
            }
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func withNothingSetUpEveryMissingPieceIsNamed() async throws {
        try await TestHome.with { home in
            let cli = home.cli(extra: ["PI_CODING_AGENT_DIR": home.scratch + "/agent", "PATH": "/usr/bin:/bin"])
            // Installed, as a real install has it: what the token is called is the plugin's to say.
            try FileManager.default.createSymbolicLink(
                atPath: home.pluginsDir + "/discord", withDestinationPath: BuildProducts.executable("pi-relay-discord"))
            try home.writeConfig("discord:\n  requireMention: true\n")
            try home.writeFile(".env", "# nothing yet\n", mode: 0o644)
            let result = try await cli.run(["doctor", "--json"], timeout: .seconds(60))
            #expect(result.status == 1, "\(result)")
            let failed = try Self.checks(result)
            Self.expectFailed(failed, "pi", detail: "pi is not in PATH", fix: "npm install -g @mariozechner/pi-coding-agent")
            Self.expectFailed(failed, "config", detail: ".env", fix: "chmod 600 \(home.path)/.env")
            #expect(failed["config"]?["title"] == ".env", "\(String(describing: failed["config"]))")
            Self.expectFailed(failed, "mode:.env", detail: "is 644", fix: "chmod 600 \(home.path)/.env")
            Self.expectFailed(failed, "daemon", detail: "not reachable", fix: "pi-relayd start")
            Self.expectPassed(failed, "extension", detail: "(optional)")
            // The unreadable .env leaves the defaults: no messenger set up is named as such.
            Self.expectFailed(failed, "messengers", detail: "none is set up", fix: "pi-relayd setup discord")

            // .env fixed: the discord section without a token, and nobody allowed.
            try home.writeFile(".env", "# nothing yet\n", mode: 0o600)
            let second = try Self.checks(try await cli.run(["doctor", "--json"], timeout: .seconds(60)))
            Self.expectFailed(second, "messenger:discord", detail: "DISCORD_BOT_TOKEN is not set", fix: "pi-relayd setup discord")
            #expect(second["config"]?["passed"] == true, "\(String(describing: second["config"]))")
            #expect(second["mode:.env"]?["passed"] == true)

            // Set but empty in the shell: it wins over .env, so a token saved there would not
            // be read. Doctor says so rather than "not set".
            let emptied = home.cli(extra: ["PI_CODING_AGENT_DIR": home.scratch + "/agent", "PATH": "/usr/bin:/bin", "DISCORD_BOT_TOKEN": ""])
            try home.writeFile(".env", "DISCORD_BOT_TOKEN=MTIz.abc.def\n", mode: 0o600)
            let third = try Self.checks(try await emptied.run(["doctor", "--json"], timeout: .seconds(60)))
            Self.expectFailed(
                third, "messenger:discord", detail: "DISCORD_BOT_TOKEN is set but empty in the environment, which wins over .env",
                fix: "unset DISCORD_BOT_TOKEN")
        }
    }

    /// Someone who uses only the web dashboard (bundled and on, no setup) has a messenger:
    /// doctor said "none is set up" and exited 1 for them.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func theWebDashboardAloneIsAMessenger() async throws {
        try await Self.withInstalled(["discord", "web"]) { home, cli in
            let checks = try Self.checks(try await cli.run(["doctor", "--json"], timeout: .seconds(60)))
            Self.expectPassed(checks, "messengers", detail: "web (no setup needed)")
        }
    }

    /// A section its plugin's schema refuses (a messenger's or any other plugin's) fails doctor
    /// with its line and column, as the daemon
    /// would refuse it at the plugin's hello; a section for a plugin that is not installed fails
    /// too, since nothing would read it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aSectionThePluginRefusesAndASectionForNoPluginAreNamed() async throws {
        try await Self.withInstalled(["discord", "formatter"]) { home, cli in
            try home.writeConfig("discord:\n  allowedUsers: [alice]\ntelegram:\n  requireMention: false\nformatter:\n  showThinking: sometimes\n")
            try home.writeFile(".env", "# nothing yet\n", mode: 0o600)
            let result = try await cli.run(["doctor", "--json"], timeout: .seconds(60))
            #expect(result.status == 1, "\(result)")
            let failed = try Self.checks(result)
            Self.expectFailed(
                failed, "config:discord", detail: "config.yaml:2:18: discord.allowedUsers[0] must be a Discord user id", fix: "line and column")
            Self.expectFailed(failed, "plugin:telegram", detail: "no telegram plugin is installed", fix: "make install")
            // Not only messengers: every installed plugin's declared section is checked.
            Self.expectFailed(
                failed, "config:formatter", detail: "config.yaml:6:17: formatter.showThinking must be true or false", fix: "line and column")
        }
    }

    /// A config.yaml others may write is refused for its mode, not for a line: the fix is the
    /// chmod, not "correct config.yaml at the line and column named".
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aConfigOthersMayWriteIsFixedWithChmod() async throws {
        try await Self.withInstalled(["discord"]) { home, cli in
            try home.writeConfig("discord:\n  requireMention: true\n")
            chmod(home.path + "/config.yaml", 0o664)
            try home.writeFile(".env", "# nothing yet\n", mode: 0o600)
            let failed = try Self.checks(try await cli.run(["doctor", "--json"], timeout: .seconds(60)))
            Self.expectFailed(failed, "config", detail: "writable by group or others", fix: "chmod go-w \(home.path)/config.yaml")
        }
    }

    /// A misspelt key in a plugin's section is a warning the daemon logs and ignores: doctor
    /// names it too, with its line and what was meant, rather than "loads cleanly".
    @Test(.timeLimit(ScenarioGate.limit(minutes: 3)))
    func aMisspeltKeyInAPluginSectionIsNamed() async throws {
        try await Self.withInstalled(["discord"]) { home, cli in
            try home.writeConfig("discord:\n  requireMentions: false\n")
            try home.writeFile(".env", "# nothing yet\n", mode: 0o600)
            let checks = try Self.checks(try await cli.run(["doctor", "--json"], timeout: .seconds(60)))
            Self.expectPassed(checks, "config:discord", detail: "config.yaml:2:3: unknown key")
            #expect(
                checks["config:discord"]?["detail"]?.stringValue?.contains("requireMention") == true,
                "\(String(describing: checks["config:discord"]))")
        }
    }
}
