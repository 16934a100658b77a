import ArgumentParser
import Foundation

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the daemon and its children.")

    func run() throws {
        let home = Home.resolve()
        do {
            _ = try home.client.call("stop")
        } catch {
            CLIFailure.exit(error)
        }
        // Wait until the socket is gone (plugins and sessions shut down in order first).
        for _ in 0..<300 {
            if !ControlClient.isAlive(home.socketPath) {
                print("pi-relayd stopped")
                return
            }
            usleep(50_000)
        }
        FileHandle.standardError.write(Data("pi-relayd: still running after 15 s\n".utf8))
        throw ExitCode(1)
    }
}
