import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Show a session's recent events (compact previews; --raw for whole payloads).")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @Option(name: .customLong("type"), help: "Only events of this type (repeatable), e.g. tool_execution_start.") var types: [String] = []
    @Option(help: "Only events since an ISO time or a duration ago: 30s, 5m, 2h.") var since: String?
    @Option(help: "At most this many events.") var limit: Int = 200
    @Option(help: "At most this many bytes of events (their JSON): older ones are left out first, the newest is always shown.")
    var maxBytes: Int?
    @Flag(help: "Messages' ends and tool calls whole, as pi wrote them (JSON lines), in place of their previews.") var raw = false
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = ["limit": JSONValue(limit), "types": .array(types.map { .string($0) })]
        params["session"] = SessionKey.json(session)
        if let since { params["since"] = .string(since) }
        if let maxBytes { params["maxBytes"] = JSONValue(maxBytes) }
        if raw { params["raw"] = true }
        SessionCall.run(.history, params, output) { result in
            (result.arrayValue ?? []).map { raw && $0["event"] != nil ? $0.serialized() : SessionCall.eventLine($0) }.joined(separator: "\n")
        }
    }
}
