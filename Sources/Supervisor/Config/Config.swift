import PiRelaySDK

/// Everything config.yaml can set, with the defaults used when a key (or the whole file) is
/// missing. docs/CONFIG.md describes every key; keep the two in step.
struct Config: Sendable, Equatable {
    var pi = PiSettings()
    var plugins = PluginSettings()
    var logs = LogSettings()
    var sessions = SessionSettings()
    var approvals = ApprovalSettings()
    var metrics = MetricsSettings()
    var chat = ChatSettings()
    var notify = NotifySettings()
    /// The `discord:` section as checked by the loader. The plugin gets it as
    /// `pluginSections["discord"]`, with ids normalised to strings.
    var discord = DiscordSettings()
    /// The `telegram:` section as checked by the loader, handed to the plugin normalised.
    var telegram = TelegramSettings()
    /// The `slack:` section as checked by the loader, handed to the plugin normalised.
    var slack = SlackSettings()
    /// Top-level sections named after plugins, sent to each plugin in `welcome.config`. A plugin
    /// without a section gets `{}` (see `section(forPlugin:)`).
    var pluginSections: [String: JSONValue] = [:]

    func section(forPlugin name: String) -> JSONValue {
        pluginSections[name] ?? .object([:])
    }
}
