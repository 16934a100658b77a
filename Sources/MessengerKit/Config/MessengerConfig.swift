import PiRelaySDK

/// A messenger's section of config.yaml as its relay reads it at start: its own keys, and the
/// settings every messenger has (`MessengerSettings`).
package protocol MessengerConfig: Sendable {
    /// Every problem is a `PluginExit.notConfigured` naming the key; secrets come from
    /// `environment`, by the variable the section names.
    static func load(_ config: JSONValue, environment: [String: String]) throws -> Self
    var settings: MessengerSettings { get }
}
