import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child started with posix_spawn (Foundation.Process is banned in this project) in a process
/// group of its own, so a test can signal it and everything it did not move elsewhere at once.
/// stdin is /dev/null (or a file or FIFO the test names); stdout and stderr go to files, which
/// never fill up and block the child the way an unread pipe would.
final class SpawnedProcess: Sendable {
    let pid: pid_t
    let command: String
    let stdoutPath: String
    let stderrPath: String
    private let reaped = Mutex<ProcessExit?>(nil)

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdoutPath: String, stderrPath: String, stdinPath: String = "/dev/null", workingDirectory: String? = nil
    ) throws {
        command = ([executable] + arguments).joined(separator: " ")
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let workingDirectory, let addChdir = Self.addChdir { _ = addChdir(&actions, workingDirectory) }
        // Tests run in parallel: without this a child would inherit whatever descriptors other
        // tests have open at that moment.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        // The test runner may block or ignore signals; the child must get the defaults, or
        // SIGTERM/SIGHUP tests would test the runner's settings instead of the daemon.
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np, but the Glibc module does not
    /// export it; look it up at run time.
    /// glibc 2.29's posix_spawn_file_actions_addchdir_np, which Swift's Glibc module does not
    /// declare (it needs _GNU_SOURCE).
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// The exit, if the process has ended (reaps it the first time).
    func poll() -> ProcessExit? {
        reaped.withLock { exit in
            if let exit { return exit }
            var status: Int32 = 0
            var rc: pid_t
            repeat { rc = waitpid(pid, &status, WNOHANG) } while rc < 0 && errno == EINTR
            if rc == pid { exit = ProcessExit(waitStatus: status) }
            return exit
        }
    }

    /// Waits for the exit without blocking a thread of the shared pool; nil after `timeout`.
    /// Polls often at first (a CLI command takes milliseconds), then every 20 ms.
    func wait(timeout: Duration) async -> ProcessExit? {
        let start = ContinuousClock.now
        while true {
            if let exit = poll() { return exit }
            let waited = ContinuousClock.now - start
            if waited >= timeout { return nil }
            try? await Task.sleep(for: waited < .milliseconds(100) ? .milliseconds(2) : .milliseconds(20))
        }
    }

    /// Signals the process (never a reaped pid, which may belong to someone else by now).
    func signal(_ signal: Int32) {
        reaped.withLock { exit in
            if exit == nil { _ = kill(pid, signal) }
        }
    }

    /// Signals the process group this process leads.
    func signalGroup(_ signal: Int32) {
        reaped.withLock { exit in
            if exit == nil { _ = kill(-pid, signal) }
        }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}
