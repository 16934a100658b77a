import ArgumentParser
import Supervisor
import SupervisorIO

struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Run the daemon as a systemd user service: started at login (or boot, with lingering), restarted if it fails.",
        subcommands: [ServiceInstallCommand.self, ServiceUninstallCommand.self, ServiceStatusCommand.self])
}
