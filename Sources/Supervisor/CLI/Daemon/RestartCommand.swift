import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct RestartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Stop the daemon and start it again in the background, waiting until it is up.",
        discussion:
            "Sessions come back as they were, as after any stop and start. A daemon that was not running is started. A config.yaml or .env that would not start is refused first, and the running daemon keeps running. A daemon that runs as the systemd user service (pi-relayd service install) is restarted by systemd, so that it stays the service."
    )
    @OptionGroup var output: OutputOptions

    func run() async {
        let home = Home.resolve()
        var stopped = true
        // A config that would not start is refused while the daemon that runs keeps running.
        do {
            _ = try Daemon.loadConfig(home: home, environment: ProcessInfo.processInfo.environment)
        } catch {
            CLIFailure.exit(DaemonLauncher.NotRestarted(reason: "\(error)"), json: output.json)
        }
        // Stopped and started from here, the service's daemon would exit cleanly (which systemd
        // does not restart), and the new one would run outside the service: no journal, no
        // restart after a crash. systemd restarts it instead.
        let systemd = SystemdUser(environment: ProcessInfo.processInfo.environment)
        if await ServiceRestart.isActive(systemd, home: home) {
            do {
                let pid = try await ServiceRestart.restart(systemd, home: home)
                output.emit(["restarted": true, "service": .string(ServiceUnit.name), "pid": JSONValue(Int(pid))]) {
                    "pi-relayd restarted by its systemd user service (pid \(pid)); logs: journalctl --user -u \(ServiceUnit.name)"
                }
            } catch {
                CLIFailure.exit(error, json: output.json)
            }
            return
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
