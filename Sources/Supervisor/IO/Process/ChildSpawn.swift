import CLinux
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Starts a child with posix_spawn: the given descriptors as its stdin, stdout and stderr,
/// nothing else inherited, in a session (and so a process group) of its own, with default
/// signal handling. swift-subprocess did this before, but every child it runs keeps a task
/// that wakes once a second to watch for cancellation: with 220 sessions that was 220 wake-ups
/// a second and most of an idle daemon's CPU (issue 12 k).
package enum ChildSpawn {
    package enum Failure: Error, Equatable {
        case notFound
        case noWorkingDirectory
        /// ETXTBSY: the program is being written. Worth another try in a moment (`ChildProcess.run`).
        case busy
        case other(String)
    }

    /// Tries at a program that is busy being written (ETXTBSY), 2 ms apart.
    static let busyRetries = 25

    /// Spawns `spec` and returns its pid: one try, which does not wait.
    package static func spawn(_ spec: ChildSpec, stdin: Int32, stdout: Int32, stderr: Int32) -> Result<pid_t, Failure> {
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: spec.workingDirectory, isDirectory: &isDirectory), isDirectory else {
            return .failure(.noWorkingDirectory)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        posix_spawn_file_actions_addchdir_np(&actions, spec.workingDirectory)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon ignores SIGPIPE; a child (pi's bash tool, say) must not inherit that.
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | pi_relayd_spawn_setsid)

        var environment = ProcessInfo.processInfo.environment
        for key in spec.withheld { environment[key] = nil }
        for (key, value) in spec.environment { environment[key] = value }
        // Found here, in PATH's absolute folders (a relative path from this process's folder):
        // posix_spawnp would look after the chdir, and take an empty or relative PATH entry for
        // the child's folder, so a session's repository could hold the `pi` or `git` that runs.
        guard let program = ExecutableSearch.find(spec.executable, path: environment["PATH"] ?? "/usr/bin:/bin") else {
            return .failure(.notFound)
        }
        let argv = [spec.executable] + spec.arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envPointers in
                posix_spawn(&pid, program, &actions, &attributes, argvPointers, envPointers)
            }
        }
        switch status {
        case 0:
            UnreapedChildren.started(pid)
            return .success(pid)
        case ENOENT, EACCES, ENOEXEC, ENOTDIR: return .failure(.notFound)
        case ETXTBSY: return .failure(.busy)
        default: return .failure(.other(String(cString: strerror(status))))
        }
    }

    /// A descriptor that becomes readable when `pid` exits; -1 when the kernel has no pidfd.
    package static func exitDescriptor(_ pid: pid_t) -> Int32 {
        let fd = pi_relayd_pidfd_open(pid)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
    }

    /// Reaps `pid`; nil while it is still running (`wait: false`). After this, it is no longer
    /// signalled (`UnreapedChildren`).
    package static func reap(_ pid: pid_t, wait: Bool) -> ChildExit? {
        UnreapedChildren.reap(pid, wait: wait)
    }

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
