import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct RestartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Stop the daemon and start it again in the background, waiting until it is up.",
        discussion:
            "Sessions come back as they were, as after any stop and start. A daemon that was not running is started. A config.yaml or .env that would not start is refused first, and the running daemon keeps running."
    )
    @OptionGroup var output: OutputOptions

    func run() {
        let home = Home.resolve()
        var stopped = true
        // A config that would not start is refused while the daemon that runs keeps running.
        do {
            _ = try Daemon.loadConfig(home: home, environment: ProcessInfo.processInfo.environment)
        } catch {
            CLIFailure.exit(DaemonLauncher.NotRestarted(reason: "\(error)"), json: output.json)
        }
        do {
            try DaemonLauncher.stop(home)
        } catch is ControlClient.NotRunning {
            stopped = false
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        do {
            let started = try DaemonLauncher.startDetached(home)
            var json = started.json
            json["stopped"] = .bool(stopped)
            output.emit(json) {
                (stopped ? "pi-relayd restarted" : "pi-relayd was not running; started it") + " (pid \(started.pid)); logs: \(started.log)"
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
