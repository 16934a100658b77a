import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
import Supervisor
#endif

/// The user's systemd: where user units go, and `systemctl --user` when it is there and the
/// user's service manager answers (not in a container, nor over ssh without a session bus).
struct SystemdUser: Sendable {
    let environment: [String: String]

    /// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    var unitFolder: String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/systemd/user" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserFolders.home
        return home + "/.config/systemd/user"
    }

    var unitPath: String { unitFolder + "/" + ServiceUnit.name }

    var userName: String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment["USER"] ?? String(getuid())
    }

    /// Whether logind keeps this user's services running with nobody logged in; nil when this
    /// machine has no logind state to ask.
    var lingering: Bool? {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: "/var/lib/systemd/linger", isDirectory: &isDirectory), isDirectory else { return nil }
        return FileManager.default.fileExists(atPath: "/var/lib/systemd/linger/" + userName)
    }

    /// `systemctl` on PATH, if any.
    var systemctl: String? { ExecutableSearch.find("systemctl", path: environment["PATH"] ?? "") }

    struct Outcome: Sendable {
        var status: Int32
        var output: String
    }

    /// Runs `systemctl --user ARGUMENTS` and returns its exit status and output (stdout and
    /// stderr together); nil when there is no systemctl.
    func run(_ arguments: [String]) async -> Outcome? {
        guard let systemctl else { return nil }
        // The child's output is read to its end with blocking reads: on a thread of its own.
        return await DedicatedThread.run("systemctl") { Self.runBlocking(systemctl, ["--user"] + arguments) }
    }

    /// Whether `systemctl --user` reaches a service manager.
    func managerAnswers() async -> Bool {
        await run(["show-environment"])?.status == 0
    }

    private static func runBlocking(_ executable: String, _ arguments: [String]) -> Outcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return Outcome(status: -1, output: "pipe: " + String(cString: strerror(errno))) }
        let nothing = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let spawned = ChildSpawn.spawn(
            ChildSpec(executable: executable, arguments: arguments, workingDirectory: "/"), stdin: nothing, stdout: fds[1], stderr: fds[1])
        close(nothing)
        close(fds[1])
        defer { close(fds[0]) }
        guard case .success(let pid) = spawned else { return Outcome(status: -1, output: "cannot run " + executable) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer.prefix(count)
        }
        let status: Int32
        switch ChildSpawn.reap(pid, wait: true) {
        case .exited(let code)?: status = code
        default: status = -1
        }
        return Outcome(status: status, output: String(decoding: output, as: UTF8.self).trimmed())
    }
}
