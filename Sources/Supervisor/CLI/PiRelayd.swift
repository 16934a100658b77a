import ArgumentParser

@main
struct PiRelayd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pi-relayd",
        abstract: "Drive pi coding-agent sessions from chat apps and the terminal.",
        discussion: "Home directory: $PI_RELAYD_HOME (default ~/.pi-relayd).",
        version: Version.current,
        subcommands: [
            StartCommand.self, StopCommand.self, StatusCommand.self, PluginsCommand.self, LogsCommand.self,
            PluginCommand.self, VersionCommand.self,
        ])
}
