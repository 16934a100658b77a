import FoundationEssentials
import PiRelaySDK

/// The pi-relayd home directory and everything in it.
struct Home: Sendable {
    let root: String

    init(root: String) {
        self.root = root
    }

    /// `$PI_RELAYD_HOME`, else `~/.pi-relayd`.
    static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> Home {
        if let path = environment["PI_RELAYD_HOME"], !path.isEmpty { return Home(root: absolute(path)) }
        let base = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserFolders.home
        return Home(root: base + "/.pi-relayd")
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    var dotenvFile: String { root + "/.env" }
    var pluginsDir: String { root + "/plugins" }
    var logsDir: String { root + "/logs" }
    var stateDir: String { root + "/state" }
    var spoolDir: String { stateDir + "/spool" }
    var outboxDir: String { stateDir + "/outbox" }
    var socketPath: String { root + "/relayd.sock" }
    var pidFile: String { stateDir + "/pi-relayd.pid" }
    var lockFile: String { stateDir + "/pi-relayd.lock" }
    func pluginStateDir(_ name: String) -> String { stateDir + "/plugins/" + name }
    func logFile(_ name: String) -> String { logsDir + "/" + name + ".log" }

    /// Creates the directories, owner-only: state and logs can hold conversation text.
    func prepare() throws {
        for dir in [root, pluginsDir, logsDir, stateDir, spoolDir, outboxDir, stateDir + "/plugins"] {
            try FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
    }
}
