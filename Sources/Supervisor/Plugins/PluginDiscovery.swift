import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Finds plugins: every executable file in the home plugins folder and in the bundled folders
/// (`searchPath`). The file name is the plugin id; the first folder that has it wins.
package struct PluginDiscovery: Sendable {
    package struct Found: Sendable, Equatable {
        package var name: String
        package var path: String
        /// Changes when the executable is replaced, which re-arms a failed plugin.
        package var fingerprint: String
    }

    package struct Refused: Sendable, Equatable {
        package var name: String
        package var path: String
        package var reason: String
    }

    package var directories: [String]
    package var disabled: Set<String>
    package var uid: uid_t = getuid()

    package init(directories: [String], disabled: Set<String>, uid: uid_t = getuid()) {
        self.directories = directories
        self.disabled = disabled
        self.uid = uid
    }

    /// Where plugins are looked for, in order: the home's `plugins/`, then the bundled folders.
    package static func searchPath(home: Home, environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        [home.pluginsDir] + bundledDirectories(environment: environment)
    }

    /// The bundled folders: `$PI_RELAYD_BUNDLED_PLUGINS` if set (empty disables them), else, from
    /// the folder of the running executable (links resolved, so a `pi-relayd` linked into PATH
    /// still finds them), `pi-relayd-plugins/` beside it (a build folder) and then
    /// `../lib/pi-relayd/plugins/` (an installed PREFIX: PREFIX/bin/pi-relayd).
    package static func bundledDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String = runningExecutable()
    ) -> [String] {
        if let path = environment["PI_RELAYD_BUNDLED_PLUGINS"] { return path.isEmpty ? [] : [path] }
        let folder = executable.parentPath
        return [folder + "/pi-relayd-plugins", folder.parentPath + "/lib/pi-relayd/plugins"]
    }

    /// The running executable's real path.
    package static func runningExecutable() -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    package func scan() -> (found: [Found], refused: [Refused], skipped: [String]) {
        var found: [String: Found] = [:]
        var refused: [Refused] = []
        var skipped: [String] = []
        // Later directories lose: the home folder is listed first.
        for dir in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = dir + "/" + name
                if found[name] != nil || refused.contains(where: { $0.name == name }) { continue }
                switch check(path) {
                case .notExecutable: continue
                case .refused(let why): refused.append(Refused(name: name, path: path, reason: why))
                case .ok(let fp):
                    if disabled.contains(name) { skipped.append(name); continue }
                    found[name] = Found(name: name, path: path, fingerprint: fp)
                }
            }
        }
        return (found.values.sorted { $0.name < $1.name }, refused, skipped)
    }

    package enum Verdict: Equatable {
        case ok(fingerprint: String)
        case notExecutable
        case refused(String)
    }

    package func check(_ path: String) -> Verdict {
        var st = stat()
        guard stat(path, &st) == 0 else { return .notExecutable }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .notExecutable }
        guard st.st_mode & 0o111 != 0 else { return .notExecutable }
        if st.st_uid != uid {
            return .refused("owned by uid \(st.st_uid), not by this user (uid \(uid)); another user could change what runs here")
        }
        if st.st_mode & 0o022 != 0 {
            let mode = String(st.st_mode & 0o777, radix: 8)
            return .refused("writable by group or others (mode \(mode)); run: chmod go-w \(path)")
        }
        if access(path, X_OK) != 0 { return .notExecutable }
        return .ok(fingerprint: "\(st.st_dev):\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
    }
}
