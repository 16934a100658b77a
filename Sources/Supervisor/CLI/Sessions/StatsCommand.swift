import ArgumentParser
import Foundation
import PiRelaySDK

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show token and message counts.")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run("stats", ["session": .string(session)], output, plain: Self.plain)
    }

    static func plain(_ r: JSONValue) -> String {
        let n = { (key: String) in r[key]?.intValue ?? 0 }
        let t = { (key: String) in r["tokens"]?[key]?.intValue ?? 0 }
        var lines = [
            "messages: \(n("totalMessages")) (\(n("userMessages")) user, \(n("assistantMessages")) assistant, "
                + "\(n("toolCalls")) tool calls, \(n("toolResults")) tool results)",
            "tokens: \(t("total")) (input \(t("input")), output \(t("output")), cache read \(t("cacheRead")), cache write \(t("cacheWrite")))",
        ]
        if let cost = r["cost"]?.doubleValue { lines.append("cost: $" + String(format: "%.4f", cost)) }
        if let file = r["sessionFile"]?.stringValue { lines.append("session file: \(file)") }
        return lines.joined(separator: "\n")
    }
}
