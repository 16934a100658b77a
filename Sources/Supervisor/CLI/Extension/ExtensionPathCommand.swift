import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ExtensionPathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path", abstract: "Print the path of the entry file (index.ts) of the extension shipped with this pi-relayd (for pi -e PATH).")
    @OptionGroup var output: OutputOptions

    func run() throws {
        do {
            let path = try ExtensionFiles().shipped()
            output.emit(["path": .string(path)]) { path }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
