import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Asks a messenger plugin who its bot is, with a token in its environment and in check-only
/// mode (no gateway, no polling), from a scratch state folder: for `setup` before a token is
/// saved, and for `doctor`. The plugin's section is checked against the schema of its hello, as
/// the daemon checks it, so its own proxy and API settings apply as the daemon would give them.
package enum MessengerIdentityCheck {
    package struct Failure: Error, CustomStringConvertible {
        /// The service's own word on the token (`not_authorized`), or nil when the plugin failed.
        package let remote: RemoteError?
        package let description: String
    }

    package static func identity(
        plugin: String, name: String, config: Config, environment: [String: String], checkSetup: Bool = false
    ) async throws(Failure) -> MessengerIdentity {
        let work: String
        do { work = try PrivateTempFolder.make("pi-relayd-check-\(name)") } catch {
            throw Failure(remote: nil, description: "cannot make a scratch folder for the \(name) plugin: \(error.message)")
        }
        defer { try? FileManager.default.removeItem(atPath: work) }
        let client = PluginClient()
        await client.spawn(path: plugin, workingDirectory: work, environment: environment)
        do {
            let hello = try await client.awaitHello()
            let checked = try PluginSections.check(
                source: config.pluginSources[name], written: config.pluginSections[name], plugin: name, hello: hello, environment: environment)
            await client.welcome(plugin: name, config: checked.section, stateDir: work, checkOnly: true)
            let identity = try await client.request(.messengerIdentity, MessengerIdentityParams(checkSetup: checkSetup), timeout: .seconds(60))
            await client.stop()
            return identity
        } catch let error as RemoteError {
            await client.stop()
            throw Failure(remote: error, description: error.message)
        } catch let error as ConfigError {
            await client.stop()
            throw Failure(remote: nil, description: error.description)
        } catch {
            await client.stop()
            throw Failure(remote: nil, description: "the \(name) plugin could not check the token: \(error)")
        }
    }
}
