import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Check a bot token with the messenger's own plugin and save it in the home's .env.",
        discussion: """
            MESSENGER is an installed messenger plugin: discord, telegram or slack, or another whose hello \
            declares its setup. The token comes from --token-stdin, else the variable the \
            plugin reads (DISCORD_BOT_TOKEN, TELEGRAM_BOT_TOKEN, or the messenger's tokenEnv), else a \
            prompt that does not echo. Slack needs two: SLACK_BOT_TOKEN (xoxb-…) and SLACK_APP_TOKEN \
            (xapp-…), one a line on standard input; setup slack also prints the app manifest to create \
            the app from. It is checked against the service through the plugin, so the \
            plugin's proxy and apiBase settings apply, and saved only if the service accepts it (.env, \
            mode 600; other lines are kept). The token is never printed. Safe to run again.
            """)

    @Argument(help: "discord, telegram, slack, or another messenger plugin.") var messenger: String
    @Flag(name: .customLong("token-stdin"), help: "Read the token from standard input.") var tokenStdin = false
    @Flag(help: "Print the messenger's app manifest (slack: docs/slack-app-manifest.yaml) and stop.") var manifest = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        if manifest {
            // The manifest is the plugin's (its hello's `setup.manifest`): an installed pi-relayd
            // has no docs folder.
            do {
                let kind = try await SetupMessenger.named(messenger, home: Home.resolve())
                guard let text = kind.setup.manifest else { throw SetupError(description: "--manifest: \(kind.name) has no app manifest") }
                StandardStreams.writeOutput(text + "\n")
            } catch {
                CLIFailure.exit(error, json: output.json)
            }
            return
        }
        do {
            let report = try await setUp()
            output.emit(report.json) { report.text }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    private func setUp() async throws -> SetupReport {
        let home = Home.resolve()
        let kind = try await SetupMessenger.named(messenger, home: home)
        let environment = ProcessInfo.processInfo.environment
        let loaded: LoadedConfig
        do { loaded = try ConfigLoader.load(home: home.root, knownPlugins: [kind.name], environment: environment) } catch {
            throw SetupError(description: "\(error)")
        }
        // Checked as the daemon will check it, so a mistake is named before a token is asked for.
        let section: JSONValue
        do {
            section = try PluginSections.check(
                source: loaded.config.pluginSources[kind.name], written: loaded.config.pluginSections[kind.name], plugin: kind.name,
                hello: kind.hello, environment: environment
            ).section
        } catch {
            throw SetupError(description: "\(error)")
        }
        var tokens: [(variable: String, value: String)] = []
        let piped = tokenStdin ? try await pipedTokens() : []
        if let instructions = kind.setup.instructions, piped.isEmpty, !output.json,
            kind.tokens.contains(where: { environment[section[$0.configKey]?.stringValue ?? $0.defaultEnv]?.isEmpty ?? true })
        {
            // Someone about to be asked for the tokens may not have the app yet.
            StandardStreams.writeError(instructions)
        }
        for (index, wanted) in kind.tokens.enumerated() {
            let variable = section[wanted.configKey]?.stringValue ?? wanted.defaultEnv
            let value = try readToken(
                kind, wanted, variable: variable, piped: Self.pick(piped, wanted, index: index, of: kind.tokens.count), environment: environment,
                saved: loaded.dotenv[variable])
            guard DotEnv.canWrite(value) else {
                throw SetupError(description: "that \(wanted.name) has characters no token has (quotes, line breaks); copy it again")
            }
            if !wanted.prefix.isEmpty, !value.hasPrefix(wanted.prefix) {
                throw SetupError(
                    description: "the \(kind.title) \(wanted.name) starts with \(wanted.prefix) (from \(wanted.source)); that one does not")
            }
            tokens.append((variable, value))
        }
        let identity = try await check(kind, config: loaded.config, tokens: tokens, dotenv: loaded.dotenv)
        try FileManager.default.createDirectory(atPath: home.root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var contents = FileManager.default.contents(atPath: home.dotenvFile).map { [UInt8]($0) } ?? []
        for token in tokens { contents = DotEnv.setting(token.variable, to: token.value, in: contents) }
        do { try AtomicFile.writeOrThrow(contents, to: home.dotenvFile) } catch {
            throw SetupError(description: "the token is good, but \(error)")
        }
        return SetupReport(
            kind: kind, identity: identity, variable: tokens.map(\.variable).joined(separator: " and "), file: home.dotenvFile,
            daemonRunning: ControlClient.isAlive(home.socketPath),
            setButEmpty: tokens.map(\.variable).filter { environment[$0]?.isEmpty == true })
    }

    /// Standard input's tokens, one a line (Slack's two: the bot token and the app-level token).
    private func pipedTokens() async throws -> [String] {
        let text = String(decoding: await SendCommand.readAll(0), as: UTF8.self)
        let tokens = text.split(whereSeparator: \.isNewline).map { String($0).trimmed() }.filter { !$0.isEmpty }
        guard !tokens.isEmpty else { throw SetupError(description: "--token-stdin: standard input was empty") }
        return tokens
    }

    /// The piped token for `wanted`: the one with its prefix, else the one in its place.
    private static func pick(_ piped: [String], _ wanted: SetupMessenger.Token, index: Int, of count: Int) -> String? {
        if !wanted.prefix.isEmpty, let found = piped.first(where: { $0.hasPrefix(wanted.prefix) }) { return found }
        return piped.count == count ? piped[index] : (index == 0 ? piped.first : nil)
    }

    private func readToken(
        _ kind: SetupMessenger, _ wanted: SetupMessenger.Token, variable: String, piped: String?, environment: [String: String], saved: String?
    ) throws -> String {
        if let piped { return piped }
        if let token = environment[variable]?.trimmed(), !token.isEmpty { return token }
        let keep = saved.map { _ in " (Enter keeps the one saved in .env)" } ?? ""
        guard let typed = SecretPrompt.read("\(kind.title) \(wanted.name) from \(wanted.source)\(keep): ") else {
            throw SetupError(
                description:
                    "no \(wanted.name): pipe it in with --token-stdin\(kind.tokens.count > 1 ? " (one token a line)" : ""), set \(variable), or run setup in a terminal to be asked for it"
            )
        }
        let token = typed.trimmed()
        if token.isEmpty, let saved { return saved }
        guard !token.isEmpty else { throw SetupError(description: "no \(wanted.name) given") }
        return token
    }

    /// Asks the plugin who the bot is (`MessengerIdentityCheck`), with the token in its environment.
    private func check(
        _ kind: SetupMessenger, config: Config, tokens: [(variable: String, value: String)], dotenv: [String: String]
    ) async throws -> MessengerIdentity {
        // .env's other settings (a proxy, say) reach the plugin as they would under the daemon.
        var environment = dotenv
        for token in tokens { environment[token.variable] = token.value }
        do {
            return try await MessengerIdentityCheck.identity(plugin: kind.path, name: kind.name, config: config, environment: environment)
        } catch {
            throw SetupError(description: "\(error.description). Nothing was saved.")
        }
    }
}
