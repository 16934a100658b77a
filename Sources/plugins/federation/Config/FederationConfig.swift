import PiRelaySDK

/// The `federation:` section of config.yaml plus the environment: where the shared database
/// is. Its URL (password included) lives in `.env` or the environment, never in config.yaml.
struct FederationConfig: Sendable {
    static let defaultVariable = BundledSecret.databaseURL

    var address: DatabaseAddress
    /// The variable the URL was read from, for messages (never the URL itself).
    var databaseEnv: String
    /// Messengers whose bot token the machines share: one machine at a time takes their updates.
    var ingress: [String] = []
    /// This machine takes a free lease first, and keeps ingress while the database is away.
    var preferred = false

    static let schema = ConfigSchema(keys: [
        ConfigKey(
            "databaseEnv",
            // Not required: a daemon on one machine has no database, and then the plugin says
            // so in its own not-configured reason rather than as a note on every start.
            .secret(
                ConfigSecret(
                    variable: defaultVariable, name: "database URL",
                    source: "your PostgreSQL server (postgres://USER:PASSWORD@HOST/DATABASE?sslmode=verify-full)", required: false)),
            help: "the environment variable (or .env entry) holding the federation database's URL"),
        ConfigKey(
            "ingress", .list(.choice(["telegram", "slack", "discord"]), what: "a list of messenger names (telegram, slack, discord)"),
            help: "messengers whose bot token every machine shares: one machine at a time takes their updates"),
        ConfigKey("preferred", .bool, help: "this machine takes a free lease first, and keeps ingress alone while the database is away"),
    ])

    /// Throws `PluginExit.notConfigured` when no URL is set, and a readable error for one that
    /// does not parse (which never repeats the URL).
    static func load(_ section: JSONValue, environment: [String: String]) throws -> FederationConfig {
        let variable = section["databaseEnv"]?.stringValue ?? defaultVariable
        let url = (environment[variable] ?? "").trimmed()
        guard !url.isEmpty else {
            // The home the daemon runs with (it sets PI_RELAYD_HOME for its plugins).
            let dotenv = environment["PI_RELAYD_HOME"].map { $0 + "/.env" } ?? "~/.pi-relayd/.env"
            throw PluginExit.notConfigured(
                "no federation database: set \(variable) in \(dotenv) to a postgres:// URL to join other machines (docs/FEDERATION.md)")
        }
        do {
            return FederationConfig(
                address: try DatabaseAddress(url: url), databaseEnv: variable,
                ingress: (section["ingress"]?.arrayValue ?? []).compactMap(\.stringValue), preferred: section["preferred"]?.boolValue ?? false)
        } catch {
            throw PluginExit.notConfigured("\(variable): \(error)")
        }
    }
}
