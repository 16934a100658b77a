import Logging

/// What a plugin learns from the welcome, plus its link back to the supervisor.
public struct PluginContext: Sendable {
    /// This plugin's config section from config.yaml (an empty object when absent).
    public let config: JSONValue
    /// A private directory for the plugin's own state; it survives restarts.
    public let stateDir: String
    /// Where large files are exchanged by path.
    public let spoolDir: String
    /// The whole welcome: the sessions and bindings of the moment, among others.
    public let welcome: Welcome
    /// Requests and notifications to the supervisor.
    public let connection: PluginConnection
    /// Writes to stderr, which the supervisor files under `logs/<plugin>.log`.
    public let logger: Logger
    /// When the supervisor last said anything (pings come every few seconds).
    public let contact: SupervisorContact
}
