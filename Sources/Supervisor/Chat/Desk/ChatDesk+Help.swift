import PiRelaySDK

/// `/help`: the messenger's own commands (from its running instance's hello, which the plugin
/// host keeps), one line each, or the supervisor's list for a messenger that registered none.
extension ChatDesk {
    package func helpReply(messenger: String) async -> Reply {
        let listed = await host.slot(messenger)?.hello?.commands ?? []
        let commands = listed.isEmpty ? ChatCommand.catalog : listed
        let lines = commands.map { "\($0.usage ?? "/" + $0.name) — \($0.description)" }
        return Reply("Commands here:\n" + lines.joined(separator: "\n") + "\nAnything else is a prompt for the session.", ephemeral: true)
    }
}
