import ArgumentParser
import Supervisor
import SupervisorIO

struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the chat users allowed in (configured and paired), or revoke a paired one.",
        subcommands: [UsersListCommand.self, UsersRevokeCommand.self],
        defaultSubcommand: UsersListCommand.self)
}
