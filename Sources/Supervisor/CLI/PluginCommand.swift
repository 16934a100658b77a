import ArgumentParser
import Supervisor
import SupervisorIO

struct PluginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin", abstract: "Work with one plugin executable.",
        subcommands: [PluginCheckCommand.self, PluginCallCommand.self])
}
