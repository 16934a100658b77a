import PiRelaySDK

extension ChatDesk {
    /// `/help`: the messenger's own menu (Telegram's "/" list, Discord's slash commands) where it
    /// registered one, then the commands that work here only as typed messages, so nothing the
    /// README promises is missing from it; else the whole catalog.
    package func helpReply(messenger: String) async -> Reply {
        Reply(Self.helpText(menu: await host.slot(messenger)?.hello?.commands ?? []), ephemeral: true)
    }

    /// The text of `/help` beside `menu`.
    package static func helpText(menu: [MessengerCommand]) -> String {
        func line(_ command: MessengerCommand) -> String { "\(command.usage ?? "/" + command.name) — \(command.description)" }
        guard !menu.isEmpty else {
            return "Commands here:\n" + ChatCommand.catalog.map(line).joined(separator: "\n") + "\nAnything else is a prompt for the session."
        }
        // Telegram's menu spells `send-image` as `send_image` (a menu name has no hyphen).
        let listed = Set(menu.map { $0.name.replacing("_", with: "-") })
        let typed = ChatCommand.catalog.filter { !listed.contains($0.name) }
        var text = "Commands here:\n" + menu.map(line).joined(separator: "\n")
        if !typed.isEmpty { text += "\nAlso, typed as a message:\n" + typed.map(line).joined(separator: "\n") }
        return text + "\nAnything else is a prompt for the session."
    }
}
