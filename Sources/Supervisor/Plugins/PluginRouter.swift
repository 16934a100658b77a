import PiRelaySDK

/// Where requests and notifications from plugins go (the chat command layer, sessions), and
/// what each plugin is told in its welcome.
protocol PluginRouter: Sendable {
    func handle(plugin: String, method: String, params: JSONValue) async throws -> JSONValue
    func notification(plugin: String, method: String, params: JSONValue) async
    /// Extra welcome fields (sessions, bindings) and the plugin's config section.
    func welcome(plugin: String) async -> JSONValue
    /// A plugin finished its handshake (so a messenger can be told about pending questions).
    func pluginReady(plugin: String, hello: Hello) async
}
