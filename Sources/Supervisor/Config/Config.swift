import PiRelaySDK

/// Everything config.yaml can set, with the defaults used when a key (or the whole file) is
/// missing. docs/CONFIG.md describes every key; keep the two in step.
package struct Config: Sendable, Equatable {
    /// `machine`: this machine's name among the user's machines; nil means the host name
    /// (`machineName`).
    package var machine: String?
    package var pi = PiSettings()
    package var plugins = PluginSettings()
    package var logs = LogSettings()
    package var sessions = SessionSettings()
    package var approvals = ApprovalSettings()
    package var metrics = MetricsSettings()
    package var schedules = ScheduleSettings()
    package var chat = ChatSettings()
    package var notify = NotifySettings()
    /// Top-level sections named after plugins, as written. Each is checked against the schema its
    /// plugin declares in its hello (`PluginSections`) and sent in `welcome.config`; a plugin
    /// without a section gets `{}` (see `section(forPlugin:)`).
    package var pluginSections: [String: JSONValue] = [:]
    /// The same sections as read from the file, for the check's line and column.
    package var pluginSources: [String: PluginSectionSource] = [:]

    package func section(forPlugin name: String) -> JSONValue {
        pluginSections[name] ?? .object([:])
    }

    /// The machine's name: `machine` as written, else the host name's first label.
    package var machineName: String { machine ?? MachineName.host }
}
