import ArgumentParser
import Supervisor
import SupervisorIO

struct ExtensionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension",
        abstract: "Install the pi extension that attaches the pi you run in a terminal (docs/EXTENSION.md).",
        subcommands: [ExtensionInstallCommand.self, ExtensionUninstallCommand.self, ExtensionPathCommand.self, ExtensionStatusCommand.self])
}
