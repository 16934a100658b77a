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
    /// Top-level sections named after plugins, as written. Each is checked against the schema its
    /// plugin declares in its hello (`PluginSections`) and sent in `welcome.config`; a plugin
    /// without a section gets `{}` (see `section(forPlugin:)`).
    var pluginSections: [String: JSONValue] = [:]
    /// The same sections as read from the file, for the check's line and column.
    var pluginSources: [String: PluginSectionSource] = [:]

    func section(forPlugin name: String) -> JSONValue {
        pluginSections[name] ?? .object([:])
    }
}
