import FoundationEssentials

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// Starts a copy of this executable in a new session, detached from the terminal.
enum Detach {
    struct SpawnError: Error, CustomStringConvertible { let description: String }

    static func spawnSelf(arguments: [String], stderrPath: String) throws -> pid_t {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // POSIX_SPAWN_SETSID (glibc): the daemon gets its own session, so closing the terminal
        // does not send it SIGHUP.
        posix_spawnattr_setflags(&attr, Int16(0x80))
        let argv = ([exe] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, exe, &actions, &attr, argv, environ)
        guard rc == 0 else { throw SpawnError(description: "cannot start \(exe): \(String(cString: strerror(rc)))") }
        return pid
    }
}
