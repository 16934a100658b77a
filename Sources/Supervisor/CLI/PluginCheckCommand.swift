import ArgumentParser
import FoundationEssentials
import PiRelaySDK

struct PluginCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run an executable through the protocol v1 handshake and basic calls, and report what conforms.")

    @Argument(help: "Path to the plugin executable.") var path: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let report = await PluginCheck(path: Home.absolute(path)).run()
        let ok = report.allSatisfy(\.passed)
        let json: JSONValue = [
            "conforms": .bool(ok),
            "checks": .array(
                report.map {
                    ["name": .string($0.name), "passed": .bool($0.passed), "detail": .string($0.detail)]
                }),
        ]
        output.emit(json) {
            report.map { "\($0.passed ? "✓" : "✗") \($0.name)\($0.detail.isEmpty ? "" : ": " + $0.detail)" }.joined(separator: "\n")
                + "\n" + (ok ? "conforms to plugin protocol v1" : "does NOT conform to plugin protocol v1")
        }
        if !ok { throw ExitCode(1) }
    }
}
