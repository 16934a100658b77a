import Testing

@testable import Supervisor

/// Whatever goes wrong, no error, warning or note may contain a secret value: only names.
@Suite struct ConfigSecretLeakTests {
    /// Contains the marker in several shapes a token or password takes.
    static let marker = "Zq9xSECRETv4lue"
    static let token = "MTIzNDU2.\(marker).abc_DEF-123"

    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        var yaml: String?
        var yamlMode: UInt32 = 0o600
        var dotenv: String?
        var dotenvMode: UInt32 = 0o600
        var environment: [String: String] = [:]
        var testDescription: String { name }
    }

    static let t = token, m = marker
    static let scenarios: [Scenario] = [
        .init(name: "token pasted into tokenEnv", yaml: "discord:\n  tokenEnv: \(t)\n"),
        .init(name: "name-shaped secret in tokenEnv", yaml: "discord:\n  tokenEnv: Ab1\(m)x9\n"),
        .init(name: "well-known API key prefix in tokenEnv", yaml: "discord:\n  tokenEnv: sk_live_\(m)\n"),
        .init(name: "token as log level", yaml: "logs:\n  level: \(t)\n"),
        .init(name: "token as busy policy", yaml: "sessions:\n  busyPolicy: \"\(t)\"\n"),
        .init(name: "token in a list where a string belongs", yaml: "pi:\n  command: [\(t)]\n"),
        .init(name: "token as a Discord user id", yaml: "discord:\n  allowedUsers: [\(t)]\n"),
        .init(name: "token as a number setting", yaml: "plugins:\n  outboxLimit: \(t)\n"),
        .init(name: "token as a path", yaml: "sessions:\n  defaultCwd: \(m)/x\n"),
        .init(name: "password in a proxy URL", yaml: "discord:\n  proxy: ftp://me:\(m)@proxy\n"),
        .init(name: "token as an API base", yaml: "discord:\n  apiBase: \(t)\n"),
        .init(name: "literal token, config readable by others", yaml: "discord:\n  token: \(t)\n", yamlMode: 0o644),
        .init(name: "literal token, private config", yaml: "discord:\n  token: \(t)\n  allowedUsers: [1]\n"),
        .init(name: "literal key under an unknown section", yaml: "discrod:\n  apiKey: \(t)\n"),
        .init(name: "token as a key", yaml: "discord: {\(t)}\n"),
        .init(name: "secret as a top-level key", yaml: "sk-\(m): 1\n"),
        .init(name: "duplicate secret-looking key", yaml: "formatter:\n  \(m)Ab1xyz: 1\n  \(m)Ab1xyz: 2\n"),
        .init(name: "token in a YAML syntax error", yaml: "discord:\n  token: \(t): x\n"),
        .init(
            name: "token inside a secret-named key, config readable by others (found by fuzz-config-loader)",
            yaml: "dixoxp-scord:\n \(t) token: \(t)\n  4lue.abc", yamlMode: 0o644),
        .init(name: "token inside a secret-named key, private config", yaml: "x:\n \(t) token: 1\n"),
        .init(name: "token as a YAML tag on a list (found by fuzz-config-loader)", yaml: "a: !!\(t)bool [x]\n"),
        .init(name: "token as a local YAML tag", yaml: "a: !\(t) x\n"),
        .init(name: "token in an unterminated quote", yaml: "discord:\n  token: \"\(t)\n"),
        .init(name: "token in pi.env with a bad value", yaml: "pi:\n  env:\n    API_TOKEN: [\(t)]\n"),
        .init(name: "secret-looking plugin disabled", yaml: "plugins:\n  disabled: [ghp_\(m)]\n"),
        .init(
            name: "env var value with a config error", yaml: "logs:\n  keep: -1\n",
            environment: ["DISCORD_BOT_TOKEN": t]),
        .init(name: ".env line without =", dotenv: "A=1\n\(t)\n"),
        .init(name: ".env unterminated double quote", dotenv: "DISCORD_BOT_TOKEN=\"\(t)\n"),
        .init(name: ".env unterminated single quote", dotenv: "DISCORD_BOT_TOKEN='\(t)\n"),
        .init(name: ".env text after the quote", dotenv: "DISCORD_BOT_TOKEN=\"\(t)\"\(m)\n"),
        .init(name: ".env bad key", dotenv: "9\(m)=\(t)\n"),
        .init(name: ".env readable by others", dotenv: "DISCORD_BOT_TOKEN=\(t)\n", dotenvMode: 0o644),
        .init(name: ".env repeated key", dotenv: "DISCORD_BOT_TOKEN=\(t)\nDISCORD_BOT_TOKEN=\(m)2\n"),
        .init(
            name: ".env value shadowed by the environment", dotenv: "DISCORD_BOT_TOKEN=\(t)\n",
            environment: ["DISCORD_BOT_TOKEN": m]),
        .init(
            name: "token in .env, custom tokenEnv unset", yaml: "discord:\n  tokenEnv: OTHER_TOKEN\n",
            dotenv: "DISCORD_BOT_TOKEN=\(t)\n"),
    ]

    @Test(arguments: scenarios)
    func noSecretInAnyMessage(_ s: Scenario) throws {
        let home = ConfigTestHome()
        if let yaml = s.yaml { home.write("config.yaml", yaml, mode: s.yamlMode) }
        if let dotenv = s.dotenv { home.write(".env", dotenv, mode: s.dotenvMode) }
        var texts: [String] = []
        do {
            let loaded = try home.load(knownPlugins: ["discord"], environment: s.environment.merging(["HOME": "/h"]) { a, _ in a })
            texts = loaded.warnings + loaded.notConfigured
        } catch {
            texts = [error.description, error.message]
        }
        #expect(!texts.isEmpty, "every scenario has something to say")
        for text in texts {
            #expect(!text.contains(Self.marker), "leaked: \(text)")
        }
    }

    @Test func secretLookingNamesAreRecognised() {
        #expect(YAMLNode.looksLikeSecret(Self.token))
        #expect(YAMLNode.looksLikeSecret("sk-abc"))
        #expect(YAMLNode.looksLikeSecret("Ab1\(Self.marker)x9"))
        for name in ["DISCORD_BOT_TOKEN", "allowedUsers", "requireMention", "healthyResetSeconds", "my_token_variable"] {
            #expect(!YAMLNode.looksLikeSecret(name), "\(name)")
        }
    }
}
