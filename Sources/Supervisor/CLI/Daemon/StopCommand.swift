import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop the daemon and its children (a session's run stops with `abort`).")
    @OptionGroup var output: OutputOptions

    func run() {
        do {
            try DaemonLauncher.stop(Home.resolve())
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        output.emit(["stopped": true]) { "pi-relayd stopped" }
    }
}
