import ArgumentParser
import FoundationEssentials
import Logging
import PiRelaySDK
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start the daemon.")

    @Flag(name: .long, help: "Stay in the foreground and log to stderr too.")
    var foreground = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        // In the foreground the daemon's log is the output: there is no result to print.
        if foreground && output.json { throw ValidationError("--json reports a background start; --foreground logs to the terminal instead") }
    }

    func run() async throws {
        let home = Home.resolve()
        if foreground {
            // A plugin that dies with lines still queued for its stdin (or a CLI that hangs up
            // before its answer) must cost a failed write, not the daemon: SIGPIPE's default
            // action would kill it.
            signal(SIGPIPE, SIG_IGN)
            // Likewise a file that may not grow (RLIMIT_FSIZE) must cost a failed write, reported
            // in `status`, not the daemon. Children get default dispositions back (`ChildSpawn`).
            signal(SIGXFSZ, SIG_IGN)
            let daemon = Daemon(home: home, foreground: true)
            let group = ServiceGroup(
                configuration: .init(
                    services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: Logger(label: "pi-relayd.lifecycle") { _ in SwiftLogNoOpLogHandler() }))
            do {
                try await group.run()
            } catch let error as ServiceGroupError {
                CLIFailure.exit(error)
            } catch {
                CLIFailure.exit(error)
            }
            return
        }
        if ControlClient.isAlive(home.socketPath) {
            output.emit(["started": false, "running": true, "socket": .string(home.socketPath)]) {
                "pi-relayd is already running (\(home.socketPath))"
            }
            return
        }
        try home.prepare()
        let errFile = home.stateDir + "/start.err"
        let pid = try Detach.spawnSelf(arguments: ["start", "--foreground"], stderrPath: errFile)
        // Wait for the control socket, or for the child to die and say why.
        for _ in 0..<200 {
            if ControlClient.isAlive(home.socketPath) {
                let log = home.logsDir + "/pi-relayd.log"
                output.emit([
                    "started": true, "running": true, "pid": JSONValue(Int(pid)), "socket": .string(home.socketPath),
                    "log": .string(log),
                ]) {
                    "pi-relayd started (pid \(pid)); logs: \(log)"
                }
                return
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let why = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
                let lines = why.split(separator: "\n").filter { !$0.contains(" info ") && !$0.contains(" notice ") }
                CLIFailure.exit(
                    RemoteError(code: .other("start_failed"), message: "pi-relayd did not start:\n" + lines.suffix(10).joined(separator: "\n")),
                    json: output.json)
            }
            usleep(50_000)
        }
        CLIFailure.exit(
            RemoteError(code: .timeout, message: "no control socket after 10 s; see \(home.logsDir)/pi-relayd.log"),
            json: output.json)
    }
}

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
