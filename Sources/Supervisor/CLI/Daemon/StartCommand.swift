import ArgumentParser
import FoundationEssentials
import Logging
import PiRelaySDK
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
import SupervisorIO
import Supervisor
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
        do {
            let started = try DaemonLauncher.startDetached(home)
            output.emit(started.json) { "pi-relayd started (pid \(started.pid)); logs: \(started.log)" }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
