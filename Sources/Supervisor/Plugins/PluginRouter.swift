import PiRelaySDK

/// Where requests and notifications from plugins go (the chat command layer, sessions), and
/// what each plugin is told in its welcome.
package protocol PluginRouter: Sendable {
    func handle(plugin: String, method: String, params: JSONValue) async throws -> JSONValue
    func notification(plugin: String, method: String, params: JSONValue) async
    /// The welcome for a plugin that said hello: its folders, its config section checked against
    /// the hello's schema, sessions and bindings. A section the schema refuses is the error.
    func welcome(plugin: String, hello: Hello) async throws(ConfigError) -> Welcome
    /// A plugin finished its handshake (so a messenger can be told about pending questions).
    func pluginReady(plugin: String, hello: Hello) async
}
