import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Check a bot token with the messenger's own plugin and save it in the home's .env.",
        discussion: """
            MESSENGER is discord or telegram. The token comes from --token-stdin, else the variable the \
            plugin reads (DISCORD_BOT_TOKEN, TELEGRAM_BOT_TOKEN, or the messenger's tokenEnv), else a \
            prompt that does not echo. It is checked against the service through the plugin, so the \
            plugin's proxy and apiBase settings apply, and saved only if the service accepts it (.env, \
            mode 600; other lines are kept). The token is never printed. Safe to run again.
            """)

    @Argument(help: "discord or telegram.") var messenger: String
    @Flag(name: .customLong("token-stdin"), help: "Read the token from standard input.") var tokenStdin = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        do {
            let report = try await setUp()
            output.emit(report.json) { report.text }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    private func setUp() async throws -> SetupReport {
        let kind = try SetupMessenger.named(messenger)
        let home = Home.resolve()
        let environment = ProcessInfo.processInfo.environment
        let loaded: LoadedConfig
        do { loaded = try ConfigLoader.load(home: home.root, knownPlugins: [kind.rawValue], environment: environment) } catch {
            throw SetupError(description: "\(error)")
        }
        let section = loaded.config.pluginSections[kind.rawValue] ?? [:]
        let variable = section["tokenEnv"]?.stringValue ?? kind.defaultTokenEnv
        let token = try await readToken(kind, variable: variable, environment: environment, saved: loaded.dotenv[variable])
        guard DotEnv.canWrite(token) else {
            throw SetupError(description: "that token has characters no bot token has (quotes, line breaks); copy it again")
        }
        guard let plugin = PluginDiscovery.installed(kind.rawValue, home: home) else {
            throw SetupError(
                description: "no \(kind.rawValue) plugin found in \(home.pluginsDir) or the bundled plugin folder; build it (make build) first")
        }
        let identity = try await check(plugin: plugin, kind: kind, config: section, variable: variable, token: token, dotenv: loaded.dotenv)
        try FileManager.default.createDirectory(atPath: home.root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let existing = FileManager.default.contents(atPath: home.dotenvFile).map { [UInt8]($0) } ?? []
        do { try AtomicFile.writeOrThrow(DotEnv.setting(variable, to: token, in: existing), to: home.dotenvFile) } catch {
            throw SetupError(description: "the token is good, but \(error)")
        }
        return SetupReport(
            kind: kind, identity: identity, variable: variable, file: home.dotenvFile, daemonRunning: ControlClient.isAlive(home.socketPath))
    }

    private func readToken(_ kind: SetupMessenger, variable: String, environment: [String: String], saved: String?) async throws -> String {
        if tokenStdin {
            let text = String(decoding: await SendCommand.readAll(0), as: UTF8.self)
            let token = text.trimmed()
            guard !token.isEmpty else { throw SetupError(description: "--token-stdin: standard input was empty") }
            return token
        }
        if let token = environment[variable]?.trimmed(), !token.isEmpty { return token }
        let keep = saved.map { _ in " (Enter keeps the one saved in .env)" } ?? ""
        guard let typed = SecretPrompt.read("\(kind.title) bot token from \(kind.tokenSource)\(keep): ") else {
            throw SetupError(
                description: "no token: pipe it in with --token-stdin, set \(variable), or run setup in a terminal to be asked for it")
        }
        let token = typed.trimmed()
        if token.isEmpty, let saved { return saved }
        guard !token.isEmpty else { throw SetupError(description: "no token given") }
        return token
    }

    /// Asks the plugin who the bot is (`MessengerIdentityCheck`), with the token in its environment.
    private func check(
        plugin: String, kind: SetupMessenger, config: JSONValue, variable: String, token: String, dotenv: [String: String]
    ) async throws -> MessengerIdentity {
        // .env's other settings (a proxy, say) reach the plugin as they would under the daemon.
        var environment = dotenv
        environment[variable] = token
        do {
            return try await MessengerIdentityCheck.identity(plugin: plugin, name: kind.rawValue, config: config, environment: environment)
        } catch {
            throw SetupError(description: "\(error.description). Nothing was saved.")
        }
    }
}
