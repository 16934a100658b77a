import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Tokens and keys from .env and config.yaml never show up in a log, an error, `status`,
/// `plugins`, `sessions` or the daemon's own output, even when plugins and pi print them: every
/// file the run leaves under PI_RELAYD_HOME (but the two that hold them) is scanned for them.
@Suite struct SecuritySecretScanTests {
    static let discordToken = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Yq2.SecretScanDiscordToken_x9"
    static let anthropicKey = "sk-ant-api03-SecretScanAnthropicKey-Zq9x"
    /// Written in config.yaml (pi.env), which is then private, as the docs require.
    static let configKey = "SecretScanConfigOpenAIKey-Pw7k"
    static let secrets = [discordToken, anthropicKey, configKey]

    /// Prints every secret it can see on stderr, then becomes fake-good (under its own name).
    static func chattyPlugin(_ home: TestHome, becomes fake: String) -> String {
        """
        #!/bin/sh
        echo "plugin says: discord $DISCORD_BOT_TOKEN anthropic $ANTHROPIC_API_KEY" >&2
        exec \(fake)

        """
    }

    /// Prints the secrets on stderr, then exits before any hello: its last stderr lines end up in
    /// the crash reason and in `plugins`.
    static let crashingPlugin = """
        #!/bin/sh
        echo "about to crash with $DISCORD_BOT_TOKEN" >&2
        echo "and $ANTHROPIC_API_KEY" >&2
        exit 3

        """

    /// Its first stdout line is not a hello but a line holding a secret, which the daemon quotes
    /// when it refuses the handshake.
    static let badFirstLinePlugin = """
        #!/bin/sh
        echo "token=$DISCORD_BOT_TOKEN"
        sleep 30

        """

    /// pi, wrapped: prints the secrets on stderr and as a non-JSON stdout line, then runs the fake
    /// pi; in a folder named `fails` it exits at once after printing them.
    static func piWrapper(fakePi: String) -> String {
        """
        #!/bin/sh
        echo "pi stderr: $ANTHROPIC_API_KEY $DISCORD_BOT_TOKEN $OPENAI_API_KEY" >&2
        case "$PWD" in
            */fails) echo "pi cannot start: bad key $ANTHROPIC_API_KEY or $OPENAI_API_KEY" >&2; exit 1 ;;
        esac
        echo "pi stdout noise: $ANTHROPIC_API_KEY $DISCORD_BOT_TOKEN $OPENAI_API_KEY"
        exec \(fakePi) "$@"

        """
    }

    @Test func plantedSecretsAppearNowhereButWhereTheyWerePut() async throws {
        try await TestHome.with { home in
            let wrapper = home.scratch + "/pi-wrapper"
            try Data(Self.piWrapper(fakePi: SessionConfig.fakePi).utf8).write(to: URL(fileURLWithPath: wrapper))
            #expect(chmod(wrapper, 0o755) == 0)
            var sessionConfig = SessionConfig(command: wrapper)
            sessionConfig.env = ["OPENAI_API_KEY": Self.configKey]
            let s = try SessionHome(home: home, config: sessionConfig)
            // SessionHome's pi section, with crash loops that end after two crashes and debug
            // logging, so pi's stderr is logged too.
            let piSection = home.read("config.yaml").dropFirst(TestConfig().yaml.count)
            try home.writeConfig(TestConfig(initialBackoffMs: 50, crashLoopCount: 2).yaml + piSection + "logs:\n  level: debug\n")
            try home.writeFile(".env", "DISCORD_BOT_TOKEN=\(Self.discordToken)\nexport ANTHROPIC_API_KEY=\"\(Self.anthropicKey)\"\n", mode: 0o600)

            try home.installFake("fake-good", as: "plain")
            try FileManager.default.createSymbolicLink(atPath: home.scratch + "/fakes/chatty", withDestinationPath: home.scratch + "/fakes/fake-good")
            try home.writeFile("plugins/chatty", Self.chattyPlugin(home, becomes: home.scratch + "/fakes/chatty"), mode: 0o755)
            try home.writeFile("plugins/crashing", Self.crashingPlugin, mode: 0o755)
            try home.writeFile("plugins/badfirst", Self.badFirstLinePlugin, mode: 0o755)

            let daemon = try await home.startDaemon()
            try await daemon.waitForRunning("chatty")
            try await daemon.waitForPlugin("crashing", "fails") { $0.state == "failed" }
            try await daemon.waitForPlugin("badfirst", "is refused or failed", timeout: .seconds(30)) {
                $0.state == "failed" || $0.state == "backoff"
            }
            let id = try await s.new(name: "talks")
            try await s.prompt(id, "hello")
            let fails = home.scratch + "/fails"
            try FileManager.default.createDirectory(atPath: fails, withIntermediateDirectories: true)
            let failed = try await s.run("new", "--cwd", fails, "--name", "broken")
            #expect(failed.status != 0, "pi was meant to fail to start: \(failed)")
            try await waitUntil("pi's stderr reached the log") { home.daemonLog.contains("pi stderr:") }

            var outputs: [(String, CLIResult)] = [("new (failing)", failed)]
            for command in [
                ["status"], ["status", "--json"], ["plugins"], ["plugins", "--json"], ["sessions"], ["sessions", "--json"],
                ["logs"], ["logs", "chatty"], ["logs", "crashing"], ["logs", "badfirst"], ["history", id, "--json"],
                ["plugins", "restart", "crashing"], ["plugin", "call", "chatty", "echo", "{}"],
            ] {
                outputs.append((command.joined(separator: " "), try await s.run(command)))
            }
            try await waitForPluginToFailAgain(daemon)
            #expect(await daemon.terminate().exit == .exited(0))

            for (command, result) in outputs {
                for secret in Self.secrets {
                    #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "`\(command)` shows a secret:\n\(result)")
                }
            }
            // Everything in the home but the two files the secrets were put in, and the daemon's
            // own stdout and stderr.
            let files = (SecurityFileMode.walk(home.path) + SecurityFileMode.walk(home.scratch).filter { $0.path.contains("/daemon-") }).filter {
                $0.kind == S_IFREG && $0.path != home.path + "/.env" && $0.path != home.path + "/config.yaml"
            }
            #expect(files.contains { $0.path.hasSuffix("/daemon-0.err") } && files.contains { $0.path.hasSuffix("logs/chatty.log") })
            var scanned = 0
            for file in files {
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                scanned += data.count
                for secret in Self.secrets where data.range(of: Data(secret.utf8)) != nil {
                    Issue.record("\(file.path) holds a planted secret (\(secret.prefix(12))…)")
                }
            }
            // The scan covered what the plugins and pi printed, masked.
            #expect(home.pluginLog("chatty").contains("plugin says: discord [redacted] anthropic [redacted]"), "\(home.pluginLog("chatty"))")
            // pi is not even given DISCORD_BOT_TOKEN (a bundled plugin's default variable is kept
            // from pi with no discord plugin configured): its place in pi's line is empty.
            #expect(home.daemonLog.contains("pi stderr: [redacted]  [redacted]"), "\(home.daemonLog)")
            #expect(scanned > 0)
        }
    }

    /// `plugins restart crashing` re-armed it; wait for its second failure so nothing is still
    /// being written when the home is scanned.
    private func waitForPluginToFailAgain(_ daemon: Daemon) async throws {
        try await daemon.waitForPlugin("crashing", "fails again") { $0.state == "failed" }
    }
}
