import PiRelaySDK
import Testing

@testable import Supervisor

/// `/help` on each bundled messenger names every chat command the README lists, whether its menu
/// (Telegram's "/" list, Discord's slash commands) has it or it works only typed as a message.
@Suite struct HelpTextTests {
    @Test(arguments: ["discord", "telegram", "slack"])
    func helpNamesEveryChatCommand(messenger: String) throws {
        let hello = try #require(BundledHellos.byName[messenger])
        let text = ChatDesk.helpText(menu: hello.commands)
        let shown = Set(
            text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("/") else { return nil }
                return String(line.dropFirst().prefix { $0 != " " }).replacing("_", with: "-")
            })
        let missing = ChatCommand.catalog.map(\.name).filter { !shown.contains($0) }
        #expect(missing.isEmpty, "\(messenger)'s /help lacks \(missing): \(text)")
        #expect(text.hasSuffix("Anything else is a prompt for the session."))
    }
}
