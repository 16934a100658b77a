import PiRelaySDK

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the loader reaches the disk, replaceable in tests: a file owned by another user cannot be
/// created without root, so the owner check is tested with a fake `readFile`.
package struct ConfigFileSystem: Sendable {
    /// Reads a whole file with its owner and permissions; nil when it does not exist.
    package var readFile: @Sendable (_ path: String) throws(ConfigError) -> ConfigFile?
    /// The user pi-relayd runs as; files must belong to it.
    package var userID: UInt32

    package init(readFile: @escaping @Sendable (_ path: String) throws(ConfigError) -> ConfigFile?, userID: UInt32) {
        self.readFile = readFile
        self.userID = userID
    }

    package static var live: ConfigFileSystem {
        ConfigFileSystem(readFile: { path throws(ConfigError) in try readFromDisk(path) }, userID: UInt32(geteuid()))
    }

    package static func readFromDisk(_ path: String) throws(ConfigError) -> ConfigFile? {
        do {
            guard let file = try WholeRead.contents(path, limit: ConfigFile.maximumSize) else { return nil }
            return ConfigFile(path: path, bytes: file.bytes, permissions: file.permissions, owner: file.owner)
        } catch  where error.reason == .tooLarge {
            throw ConfigError(
                .unreadable, file: path,
                "cannot read \(path): it is larger than \(ConfigFile.maximumSize / 1024) KiB, which no config file needs")
        } catch {
            throw ConfigError(.unreadable, file: path, error.description)
        }
    }
}
