import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show token and message counts.")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.stats, SessionKey.params(session), output, plain: Self.plain)
    }

    static func plain(_ stats: JSONValue) -> String {
        let count = { (key: String) in stats[key]?.intValue ?? 0 }
        let tokens = { (key: String) in stats["tokens"]?[key]?.intValue ?? 0 }
        var lines = [
            "messages: \(count("totalMessages")) (\(count("userMessages")) user, \(count("assistantMessages")) assistant, "
                + "\(count("toolCalls")) tool calls, \(count("toolResults")) tool results)",
            "tokens: \(tokens("total")) (input \(tokens("input")), output \(tokens("output")), cache read \(tokens("cacheRead")), cache write \(tokens("cacheWrite")))",
        ]
        if let cost = stats["cost"]?.doubleValue { lines.append("cost: $" + cost.fixedPoint(4)) }
        if let file = stats["sessionFile"]?.stringValue { lines.append("session file: \(file)") }
        return lines.joined(separator: "\n")
    }
}
