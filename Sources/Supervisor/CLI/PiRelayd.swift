import ArgumentParser

public struct PiRelayd: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pi-relayd",
        abstract: "Drive pi coding-agent sessions from chat apps and the terminal.",
        discussion: "Home directory: $PI_RELAYD_HOME (default ~/.pi-relayd).",
        version: Version.current,
        subcommands: [
            StartCommand.self, StopCommand.self, StatusCommand.self, PluginsCommand.self, LogsCommand.self,
            PluginCommand.self, VersionCommand.self,
            SessionsCommand.self, NewCommand.self, SendCommand.self, SteerCommand.self, FollowUpCommand.self,
            AbortCommand.self, CompactCommand.self, StreamCommand.self, HistoryCommand.self, QuestionsCommand.self,
            AnswerCommand.self, CancelCommand.self, RenameCommand.self, EndCommand.self, ModelCommand.self,
            ThinkingCommand.self, StateCommand.self, StatsCommand.self, LastCommand.self, NewConversationCommand.self,
            RenderCommand.self, FileCommand.self, ImagesCommand.self, ExtensionCommand.self, ApprovalsCommand.self,
            ApproveCommand.self, DenyCommand.self, ServiceCommand.self,
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
