import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the daemon and its children.")
    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = Home.resolve()
        do {
            _ = try home.client.call("stop")
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        // Wait until the socket is gone (plugins and sessions shut down in order first).
        for _ in 0..<300 {
            if !ControlClient.isAlive(home.socketPath) {
                output.emit(["stopped": true]) { "pi-relayd stopped" }
                return
            }
            usleep(50_000)
        }
        CLIFailure.exit(RemoteError(code: .timeout, message: "still running after 15 s"), json: output.json)
    }
}
