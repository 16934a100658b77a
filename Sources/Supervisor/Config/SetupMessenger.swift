import FoundationEssentials
import PiRelaySDK

/// A messenger `pi-relayd setup` and `doctor` know how to set up: an installed plugin whose hello
/// declares `setup`. What they say of it (its name, its tokens, where those come from) is the
/// plugin's own; nothing here is particular to one service.
package struct SetupMessenger: Sendable {
    /// A token the messenger needs: the config key naming its variable, the variable's default,
    /// how the token starts (empty when it has no telling prefix) and where it comes from.
    package struct Token: Sendable {
        package var configKey: String
        package var defaultEnv: String
        package var prefix: String
        package var source: String
        package var name: String
    }

    /// The plugin's name, as in config.yaml and on the command line.
    package let name: String
    package let path: String
    package let hello: Hello
    package let setup: MessengerSetup

    /// The service's name as people write it.
    package var title: String { setup.title }

    /// The tokens, in the order they are asked for; the first is the bot's.
    package var tokens: [Token] {
        (hello.config?.secrets ?? []).map { key, secret in
            Token(configKey: key, defaultEnv: secret.variable, prefix: secret.prefix, source: secret.source, name: secret.name)
        }
    }

    /// The variable the bot token is read from, as `section` names it or by default.
    package func tokenVariable(_ section: JSONValue?) -> String? {
        tokens.first.map { section?[$0.configKey]?.stringValue ?? $0.defaultEnv }
    }

    /// The plugin, when its hello declares a setup.
    package init?(_ plugin: PluginDiscovery.Found, hello: Hello) {
        guard let setup = hello.setup else { return nil }
        self.init(name: plugin.name, path: plugin.path, hello: hello, setup: setup)
    }

    package init(name: String, path: String, hello: Hello, setup: MessengerSetup) {
        self.name = name
        self.path = path
        self.hello = hello
        self.setup = setup
    }

    /// Each plugin's hello, asked once, by name; a plugin that says none is left out (`doctor`
    /// and the daemon say why it does not start).
    package static func hellos(of found: [PluginDiscovery.Found]) async -> [(plugin: PluginDiscovery.Found, hello: Hello)] {
        var hellos: [(plugin: PluginDiscovery.Found, hello: Hello)] = []
        for plugin in found.sorted(by: { $0.name < $1.name }) {
            if let hello = try? await PluginClient.hello(plugin: plugin.path) { hellos.append((plugin, hello)) }
        }
        return hellos
    }

    /// Every installed plugin that declares a setup, by name.
    package static func installed(home: Home) async -> [SetupMessenger] {
        let found = PluginDiscovery(directories: PluginDiscovery.searchPath(home: home), disabled: []).scan().found
        return await hellos(of: found).compactMap { SetupMessenger($0.plugin, hello: $0.hello) }
    }

    /// The messenger named on the command line; a clear error for the others.
    package static func named(_ name: String, home: Home) async throws -> SetupMessenger {
        let name = name.lowercased()
        if let path = PluginDiscovery.installed(name, home: home) {
            let hello: Hello
            do { hello = try await PluginClient.hello(plugin: path) } catch {
                throw SetupError(description: "the \(name) plugin (\(path)) did not start: \(error)")
            }
            if let setup = hello.setup { return SetupMessenger(name: name, path: path, hello: hello, setup: setup) }
        }
        let known = await installed(home: home).map(\.name)
        guard !known.isEmpty else {
            throw SetupError(
                description: "no \(name) plugin found in \(home.pluginsDir) or the bundled plugin folder; build it (make build) first")
        }
        let list = known.count > 1 ? known.dropLast().joined(separator: ", ") + " and " + known[known.count - 1] : known[0]
        throw SetupError(description: "unknown messenger \(name): setup knows \(list)")
    }
}

/// A setup step that failed; the message says what to do.
package struct SetupError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
