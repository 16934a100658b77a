import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct PluginCallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send a request (or, with --deliver, an acknowledged delivery) to a running plugin.",
        discussion:
            "Example: pi-relayd plugin call echo echo '{\"hello\":1}'. A request waits for the plugin if it is restarting and is retried once if it crashes; a delivery waits in the plugin's outbox until acknowledged."
    )

    @Argument(help: "Plugin name.") var name: String
    @Argument(help: "Method.") var method: String
    @Argument(help: "Params as a JSON object.") var params: String = "{}"
    @Flag(name: .long, help: "Send as an acknowledged delivery instead of a request.") var deliver = false
    @Option(name: .long, help: "Request timeout in milliseconds.") var timeoutMs: Int = 30_000
    /// Accepted like everywhere else; the answer is JSON either way.
    @OptionGroup var output: OutputOptions

    func run() throws {
        let parsedParams: JSONValue
        do { parsedParams = try JSONValue.parse(params) } catch { throw ValidationError("params must be a JSON object: \(error)") }
        do {
            let result = try Home.resolve().client.call(
                .pluginsCall,
                [
                    "name": .string(name), "method": .string(method), "params": parsedParams, "deliver": .bool(deliver),
                    "timeoutMs": JSONValue(timeoutMs),
                ])
            output.emit(result) { result.serialized() }
        } catch {
            CLIFailure.exit(error, json: true)
        }
    }
}
