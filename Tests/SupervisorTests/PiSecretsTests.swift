import Foundation
import PiRelaySDK
import SupervisorIO
import Testing

@testable import Supervisor

/// A pi session does not get the plugins' secrets from the daemon's environment: a bot token or
/// the federation's database address is its plugin's alone, and the agent can read its own
/// environment (and be asked to, by text it reads). Its model's API key it still gets.
@Suite struct PiSecretsTests {
    static let yaml = """
        pi:
          env:
            SHARED_ON_PURPOSE: "1"
        discord:
          tokenEnv: PST_DISCORD
        federation:
          databaseEnv: PST_DATABASE
        attachments:
          transcribe:
            endpoint: https://api.example.net/v1
            keyEnv: PST_TRANSCRIBE

        """

    @Test func theVariablesSectionsNameAndPluginsDeclareAreWithheld() throws {
        let loaded = try ConfigTestHome().load(yaml: Self.yaml, knownPlugins: ["discord", "federation", "attachments", "telegram"])
        let sections = PluginSections(config: loaded.config, environment: [:])
        #expect(sections.withheldFromPi.isSuperset(of: ["PST_DISCORD", "PST_DATABASE", "PST_TRANSCRIBE"]), "\(sections.withheldFromPi)")
        // The bundled plugins' default variables, before any hello: a disabled plugin, or one
        // that fails before its hello, declares nothing, and its token may still be in .env.
        #expect(sections.withheldFromPi.isSuperset(of: ["TELEGRAM_BOT_TOKEN", "SLACK_APP_TOKEN", "TRANSCRIBE_API_KEY"]))
        // A plugin of another name: what its hello declares, and its value is masked in logs.
        #expect(!sections.withheldFromPi.contains("PST_MATRIX_ACCESS"))
        let matrix = Hello(
            name: "matrix", version: "1", roles: ["messenger"],
            config: ConfigSchema(keys: [
                ConfigKey("accessEnv", .secret(ConfigSecret(variable: "PST_MATRIX_ACCESS", name: "access token", source: "the homeserver")))
            ]))
        let withMatrix = PluginSections(config: loaded.config, environment: ["PST_MATRIX_ACCESS": "mx-PiSecretsTests-7c1e"])
        _ = try withMatrix.check(plugin: "matrix", hello: matrix)
        #expect(withMatrix.withheldFromPi.contains("PST_MATRIX_ACCESS"))
        #expect(Redactor.redact("signed in with mx-PiSecretsTests-7c1e") == "signed in with [redacted]")

        var launcher = PiLauncher(settings: loaded.config.pi)
        launcher.withheld = { ["PST_DISCORD", "SHARED_ON_PURPOSE"] }
        let spec = launcher.spec(cwd: "/w", sessionFile: nil, sessionID: "s1", sessionName: "api")
        #expect(spec.withheld == ["PST_DISCORD"], "pi.env may still hand a variable over on purpose")
    }

    @Test func aWithheldVariableDoesNotReachTheChild() async throws {
        // HOME stands for a secret the daemon's environment holds (set in every test run).
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        var spec = ChildSpec(executable: "/usr/bin/env", environment: ["PST_GIVEN": "given"], workingDirectory: "/")
        let everything = await ChildOutput.collect(spec, maxBytes: 1 << 20, timeout: .seconds(30))
        #expect(everything.lines.contains("HOME=\(home)"))
        spec.withheld = ["HOME"]
        let output = await ChildOutput.collect(spec, maxBytes: 1 << 20, timeout: .seconds(30))
        #expect(output.lines.contains("PST_GIVEN=given"))
        #expect(!output.lines.contains { $0.hasPrefix("HOME=") })
    }
}
