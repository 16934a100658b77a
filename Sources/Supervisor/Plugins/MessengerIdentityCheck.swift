import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Asks a messenger plugin who its bot is, with a token in its environment and in check-only
/// mode (no gateway, no polling), from a scratch state folder: for `setup` before a token is
/// saved, and for `doctor`. The plugin's own proxy and API settings apply.
enum MessengerIdentityCheck {
    struct Failure: Error, CustomStringConvertible {
        /// The service's own word on the token (`not_authorized`), or nil when the plugin failed.
        let remote: RemoteError?
        let description: String
    }

    static func identity(
        plugin: String, name: String, config: JSONValue, environment: [String: String], checkSetup: Bool = false
    ) async throws(Failure) -> MessengerIdentity {
        let work = UserFolders.temporary + "/pi-relayd-check-\(getpid())-\(name)"
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(remote: nil, description: "cannot make a scratch folder for the \(name) plugin: \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: work) }
        let client = PluginClient()
        await client.spawn(path: plugin, workingDirectory: work, environment: environment)
        do {
            _ = try await client.start(config: config, stateDir: work, checkOnly: true)
            let identity = try await client.request(.messengerIdentity, MessengerIdentityParams(checkSetup: checkSetup), timeout: .seconds(60))
            await client.stop()
            return identity
        } catch let error as RemoteError {
            await client.stop()
            throw Failure(remote: error, description: error.message)
        } catch {
            await client.stop()
            throw Failure(remote: nil, description: "the \(name) plugin could not check the token: \(error)")
        }
    }
}
