import FoundationEssentials
import PiRelaySDK
import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// The pi-relayd home directory and everything in it.
package struct Home: Sendable {
    package let root: String

    package init(root: String) {
        self.root = root
    }

    /// `$PI_RELAYD_HOME`, else `~/.pi-relayd`.
    package static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> Home {
        if let path = environment["PI_RELAYD_HOME"], !path.isEmpty { return Home(root: absolute(path)) }
        let base = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserFolders.home
        return Home(root: base + "/.pi-relayd")
    }

    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    package var dotenvFile: String { root + "/.env" }
    package var pluginsDir: String { root + "/plugins" }
    package var logsDir: String { root + "/logs" }
    package var stateDir: String { root + "/state" }
    package var spoolDir: String { stateDir + "/spool" }
    package var outboxDir: String { stateDir + "/outbox" }
    package var socketPath: String { root + "/relayd.sock" }
    package var bindingsFile: String { stateDir + "/bindings.json" }
    package var schedulesFile: String { stateDir + "/schedules.json" }
    package var pidFile: String { stateDir + "/pi-relayd.pid" }
    /// The pid the last daemon of this home wrote; nil when there is none to read.
    package var writtenPID: Int32? { (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmed()) } }
    package var lockFile: String { stateDir + "/pi-relayd.lock" }
    package func pluginStateDir(_ name: String) -> String { stateDir + "/plugins/" + name }
    package func logFile(_ name: String) -> String { logsDir + "/" + name + ".log" }

    /// Creates the directories, owner-only: state and logs can hold conversation text. A home
    /// the owner made by hand (`mkdir -p ~/.pi-relayd`, 755 under the usual umask) is made
    /// owner-only too: it holds the control socket and the secrets.
    package func prepare() throws {
        for dir in [root, pluginsDir, logsDir, stateDir, spoolDir, outboxDir, stateDir + "/plugins"] {
            try FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        var info = stat()
        if stat(root, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 { chmod(root, info.st_mode & 0o700) }
        // Another user's home, or one others may write to, would let them replace the control
        // socket (and read what the CLI sends) or the config: refused, not used.
        if let problem = SocketTrust.problem(home: root, owner: SocketTrust.Owner(path: root), uid: geteuid()) {
            throw HomeRefused(description: "pi-relayd will not use \(root) as its home: \(problem). Use a folder only you own (PI_RELAYD_HOME).")
        }
    }

    package struct HomeRefused: Error, CustomStringConvertible {
        package let description: String
    }
}
