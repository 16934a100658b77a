import PiRelaySDK

/// Where requests and notifications from plugins go (the chat command layer, sessions), and
/// what each plugin is told in its welcome.
protocol PluginRouter: Sendable {
    func handle(plugin: String, method: String, params: JSONValue) async throws -> JSONValue
    func notification(plugin: String, method: String, params: JSONValue) async
    /// The welcome for a plugin that said hello: its folders, config section, sessions and bindings.
    func welcome(plugin: String) async -> Welcome
    /// A plugin finished its handshake (so a messenger can be told about pending questions).
    func pluginReady(plugin: String, hello: Hello) async
}
