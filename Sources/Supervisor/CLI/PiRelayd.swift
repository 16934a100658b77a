import ArgumentParser
import Supervisor
import SupervisorIO

public struct PiRelayd: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pi-relayd",
        abstract: "Drive pi coding-agent sessions from chat apps and the terminal.",
        discussion: """
            Home directory: $PI_RELAYD_HOME (default ~/.pi-relayd).
            `abort` stops a session's run (also `stop-run`); `stop` stops the daemon.
            Shell completions: pi-relayd --generate-completion-script bash|zsh|fish (README, "Shell completions").
            """,
        version: Version.current,
        // One group a line, one command a name: adding a command to a group is adding its type
        // to that group's list.
        groupedSubcommands: [
            CommandGroup(
                name: "daemon",
                subcommands: [
                    StartCommand.self, StopCommand.self, RestartCommand.self, StatusCommand.self, LogsCommand.self, ServiceCommand.self,
                    VersionCommand.self,
                ]),
            CommandGroup(
                name: "sessions",
                subcommands: [
                    SessionsCommand.self, NewCommand.self, SendCommand.self, StreamCommand.self, SteerCommand.self, FollowUpCommand.self,
                    AbortCommand.self, CompactCommand.self, LastCommand.self, HistoryCommand.self, QuestionsCommand.self, AnswerCommand.self,
                    CancelCommand.self, ApprovalsCommand.self, ApproveCommand.self, DenyCommand.self, RenameCommand.self, EndCommand.self,
                    ModelCommand.self, ThinkingCommand.self, StateCommand.self, StatsCommand.self, NewConversationCommand.self,
                    FileCommand.self, ImagesCommand.self, EmitCommand.self, CommandsCommand.self, ScheduleCommand.self,
                ]),
            CommandGroup(name: "plugins", subcommands: [PluginsCommand.self, PluginCommand.self, RenderCommand.self]),
            CommandGroup(
                name: "setup",
                subcommands: [SetupCommand.self, PairCommand.self, UsersCommand.self, DoctorCommand.self, ExtensionCommand.self]),
        ])

    public init() {}
}

extension PiRelayd {
    /// The executable's entry point. Outside `@main`, a bare `PiRelayd.main()` resolves to
    /// ParsableCommand's synchronous `main`, which refuses an asynchronous root command.
    public static func mainAsync() async {
        await (Self.self as any AsyncParsableCommand.Type).main()
    }
}
