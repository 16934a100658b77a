import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version.")
    @OptionGroup var output: OutputOptions

    func run() {
        output.emit(["version": .string(Version.current), "protocol": JSONValue(WireMessage.protocolVersion)]) {
            "pi-relayd \(Version.current) (plugin protocol \(WireMessage.protocolVersion))"
        }
    }
}
