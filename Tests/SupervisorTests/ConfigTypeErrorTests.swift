import Testing

@testable import Supervisor

/// Every kind of mistake in config.yaml, with the exact `file:line:column: message` it produces.
@Suite struct ConfigTypeErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let yaml: String
        /// `line:column: message`; the test prefixes the file.
        let expected: String
        var testDescription: String { expected }
    }

    static let cases: [Case] = [
        .init(yaml: "plugins:\n  disabled: 5", expected: "2:13: plugins.disabled must be a list of plugin names, got a number"),
        .init(yaml: "plugins:\n  disabled: [a, [b]]", expected: "2:17: plugins.disabled[1] must be a plugin name, got a list"),
        .init(yaml: "plugins:\n  disabled: [../evil]", expected: "2:14: plugins.disabled[0] must be a plugin's file name, not a path"),
        .init(yaml: "pi: [a]", expected: "1:5: pi must be a map of settings, got a list"),
        .init(
            yaml: "machine: my laptop",
            expected:
                "1:10: machine must be a machine name: letters, digits, '.', '_' and '-', at most 63, starting with a letter or digit"),
        .init(yaml: "machine: [a]", expected: "1:10: machine must be a machine name, got a list"),
        .init(yaml: "- a", expected: "1:1: the file must be a map of sections (pi:, plugins:, logs:, ...), got a list"),
        .init(yaml: "pi:\n  command: 5", expected: "2:12: pi.command must be a string, got a number (put it in quotes if you mean it as text)"),
        .init(yaml: "pi:\n  command: [pi]", expected: "2:12: pi.command must be a string, got a list"),
        .init(yaml: "pi:\n  command: \"\"", expected: "2:12: pi.command must not be empty"),
        .init(yaml: "pi:\n  args: {a: 1}", expected: "2:9: pi.args must be a list of arguments, got a map"),
        .init(yaml: "pi:\n  env: [A]", expected: "2:8: pi.env must be a map of variable names to values, got a list"),
        .init(yaml: "pi:\n  env: {BAD-NAME: 1}", expected: "2:9: pi.env keys must be environment variable names (letters, digits and _)"),
        .init(yaml: "pi:\n  env: {A: [1]}", expected: "2:12: pi.env.A must be text (quote it if needed), got a list"),
        .init(yaml: "pi:\n  agentDir: relative/dir", expected: "2:13: pi.agentDir must be an absolute path (starting with / or ~/)"),
        .init(yaml: "pi:\n  startTimeoutSeconds: 0", expected: "2:24: pi.startTimeoutSeconds must be more than 0"),
        .init(yaml: "pi:\n  startTimeoutSeconds: -1", expected: "2:24: pi.startTimeoutSeconds must be at least 0, got -1"),
        .init(yaml: "pi:\n  startTimeoutSeconds: soon", expected: "2:24: pi.startTimeoutSeconds must be a number, got a string"),
        .init(yaml: "pi:\n  dialogTimeoutSeconds: .inf", expected: "2:25: pi.dialogTimeoutSeconds must be a finite number"),
        .init(yaml: "plugins:\n  outboxLimit: 0", expected: "2:16: plugins.outboxLimit must be at least 1, got 0"),
        .init(yaml: "plugins:\n  outboxLimit: 2.5", expected: "2:16: plugins.outboxLimit must be a whole number, got a fraction"),
        .init(yaml: "plugins:\n  maxLineBytes: 99999999999999999999", expected: "2:17: plugins.maxLineBytes must be at most 1073741824"),
        .init(yaml: "plugins:\n  maxLineBytes: 1000", expected: "2:17: plugins.maxLineBytes must be at least 65536, got 1000"),
        .init(yaml: "plugins:\n  restart: {jitter: 1.5}", expected: "2:21: plugins.restart.jitter must be at most 1, got 1.5"),
        .init(
            yaml: "plugins:\n  restart: {initialBackoffMs: 5000, maxBackoffMs: 1000}",
            expected: "2:51: plugins.restart.maxBackoffMs must be at least plugins.restart.initialBackoffMs (5000)"),
        .init(yaml: "plugins:\n  restart: 3", expected: "2:12: plugins.restart must be a map of settings, got a number"),
        .init(yaml: "plugins:\n  shutdownGraceMs: 1.5", expected: "2:20: plugins.shutdownGraceMs must be a whole number, got a fraction"),
        .init(yaml: "logs:\n  level: verbose", expected: "2:10: logs.level must be one of: trace, debug, info, notice, warning, error, critical"),
        .init(
            yaml: "logs:\n  level: 3", expected: "2:10: logs.level must be one of: trace, debug, info, notice, warning, error, critical, got a number"
        ),
        .init(yaml: "logs:\n  keep: true", expected: "2:9: logs.keep must be a whole number, got true/false"),
        .init(yaml: "logs:\n  maxBytes: 100", expected: "2:13: logs.maxBytes must be at least 4096, got 100"),
        .init(yaml: "sessions:\n  busyPolicy: queue", expected: "2:15: sessions.busyPolicy must be one of: followUp, steer"),
        .init(
            yaml: "telegram:\n  allowedUsers: [alice]",
            expected: "2:18: telegram.allowedUsers[0] must be a Telegram user id: digits only (message @userinfobot to learn yours)"),
        .init(yaml: "telegram:\n  pollTimeoutSeconds: 90", expected: "2:23: telegram.pollTimeoutSeconds must be at most 50, got 90"),
        .init(yaml: "sessions:\n  spawnLimit: -1", expected: "2:15: sessions.spawnLimit must be at least 0, got -1"),
        .init(yaml: "sessions:\n  historyEvents: many", expected: "2:18: sessions.historyEvents must be a whole number, got a string"),
        .init(yaml: "discord:\n  allowedUsers: 5", expected: "2:17: discord.allowedUsers must be a list of Discord user ids, got a number"),
        .init(
            yaml: "discord:\n  allowedUsers: [alice]",
            expected: "2:18: discord.allowedUsers[0] must be a Discord user id: digits only (in Discord, turn on Developer Mode and use Copy ID)"),
        .init(
            yaml: "discord:\n  allowedUsers: [-5]",
            expected: "2:18: discord.allowedUsers[0] must be a Discord user id: digits only (in Discord, turn on Developer Mode and use Copy ID)"),
        .init(yaml: "discord:\n  guilds: [{}]", expected: "2:12: discord.guilds[0] must be a Discord server id, got a map"),
        .init(yaml: "discord:\n  dms: maybe", expected: "2:8: discord.dms must be one of: answer, ignore"),
        .init(yaml: "discord:\n  dms: [answer]", expected: "2:8: discord.dms must be one of: answer, ignore, got a list"),
        .init(yaml: "discord:\n  channels: [{cwd: /x}]", expected: "2:14: discord.channels[0] needs an id (the Discord channel id)"),
        .init(
            yaml: "discord:\n  channels: [{id: 1}, {id: \"1\"}]", expected: "2:28: discord.channels[1].id is the same channel as discord.channels[0]"),
        .init(yaml: "discord:\n  channels: [5]", expected: "2:14: discord.channels[0] must be a map of settings, got a number"),
        .init(
            yaml: "discord:\n  channels: {id: 5}",
            expected: "2:13: discord.channels must be a list of channels like {id: \"123\", cwd: /path, name: api}, got a map"),
        .init(yaml: "discord:\n  requireMention: maybe", expected: "2:19: discord.requireMention must be true or false, got a string"),
        .init(
            yaml: "discord:\n  tokenEnv: MTIz.abc-def",
            expected: "2:13: discord.tokenEnv must be the name of an environment variable (letters, digits and _), not the secret itself"),
        .init(yaml: "discord:\n  apiBase: discord.com", expected: "2:12: discord.apiBase must be an http:// or https:// URL"),
        .init(
            yaml: "discord:\n  proxy: ftp://x",
            expected:
                "2:10: discord.proxy must be a proxy URL starting with one of: http://, socks5://, socks5h://, or \"\" for none (the gateway cannot use https:// or socks4 proxies)"
        ),
        .init(yaml: "discord: [1]", expected: "1:10: discord must be a map of settings for the discord plugin, got a list"),
        .init(yaml: "formatter: text", expected: "1:12: formatter must be a map of settings for the formatter plugin, got a string"),
        .init(yaml: "u: &u 5\ndiscord:\n  allowedUsers: *u", expected: "3:17: discord.allowedUsers must be a list of Discord user ids, got a number"),
    ]

    @Test(arguments: cases)
    func typeErrorNamesFileLineColumnAndExpectation(_ c: Case) throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: c.yaml))
        #expect(error.description == "\(home.configPath):\(c.expected)")
        #expect(error.kind == .invalidValue)
        #expect(error.file == home.configPath)
    }

    /// A byte-order mark (as some Windows editors save UTF-8) is no column: an editor shows
    /// none, and line 1's errors pointed one column past the mistake.
    @Test func aByteOrderMarkDoesNotShiftLineOnesColumns() throws {
        let home = ConfigTestHome()
        let marked = try #require(home.loadError(yaml: "\u{FEFF}pi: [a]"))
        #expect(marked.description == "\(home.configPath):1:5: pi must be a map of settings, got a list")
        let syntax = try #require(home.loadError(yaml: "\u{FEFF}pi: [a\n"))
        let plain = try #require(home.loadError(yaml: "pi: [a\n"))
        #expect(syntax.description == plain.description)
    }

    @Test func syntaxErrorsNameFileLineAndColumn() throws {
        let home = ConfigTestHome()
        let error = try #require(home.loadError(yaml: "pi:\n  command: pi\n args: []\n"))
        #expect(error.kind == .syntax)
        #expect(error.line == 3 && error.column == 2)
        #expect(
            error.description
                == "\(home.configPath):3:2: YAML syntax error: did not find expected key (while parsing a block mapping at line 1, column 1)")

        let duplicate = try #require(home.loadError(yaml: "logs: {}\nlogs: {}\n"))
        #expect(duplicate.description == "\(home.configPath):2:1: duplicate key 'logs' (first at line 1)")
    }

    @Test func tildeWithoutHomeIsAnError() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "sessions:\n  defaultCwd: ~/work\n")
        let error = try #require(home.loadError(environment: [:]))
        #expect(error.description == "\(home.configPath):2:15: sessions.defaultCwd starts with ~ but HOME is not set")
    }
}
