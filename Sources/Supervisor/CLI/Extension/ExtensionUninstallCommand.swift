import ArgumentParser
import FoundationEssentials
import PiRelaySDK

struct ExtensionUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "uninstall", abstract: "Remove the installed extension.")
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let target = ExtensionFiles().target(project: location.project)
        do {
            guard FileManager.default.fileExists(atPath: target) else {
                output.emit(["removed": .null, "path": .string(target)]) { "the pi-relayd extension is not installed at \(target)" }
                return
            }
            // Only our own file: a file of that name that is something else is the user's.
            guard ExtensionFiles.version(ofFileAt: target) != nil else {
                throw RemoteError(code: .other("not_ours"), message: "\(target) is not the pi-relayd extension; left as it is")
            }
            try FileManager.default.removeItem(atPath: target)
            output.emit(["removed": .string(target)]) { "removed \(target)\nA running pi keeps it until it quits or runs /reload." }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
