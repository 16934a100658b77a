import ArgumentParser

struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Prompt sessions on a schedule (chats: /schedule).",
        subcommands: [ScheduleAddCommand.self, ScheduleListCommand.self, ScheduleRemoveCommand.self])
}
