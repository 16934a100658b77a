import ArgumentParser

struct PluginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin", abstract: "Work with one plugin executable.",
        subcommands: [PluginCheckCommand.self, PluginCallCommand.self])
}
