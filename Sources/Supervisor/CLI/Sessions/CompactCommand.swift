import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compact", abstract: "Compact the conversation (stops a running turn).")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @Option(help: "What the summary should keep.") var instructions: String?
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = SessionKey.params(session)
        if let instructions { params["instructions"] = .string(instructions) }
        SessionCall.run(.compact, params, output, progress: "compacting") { result in
            "compacted" + (result["tokensBefore"]?.intValue.map { " (\($0) tokens before)" } ?? "")
        }
    }
}
