import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ExtensionUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove the installed extension's folder (and an older pi-relayd's single-file copy).")
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let files = ExtensionFiles()
        let target = files.target(project: location.project)
        let old = files.singleFile(project: location.project)
        do {
            // Only our own: a folder or file of that name that is something else is the user's.
            var removed: [String] = []
            if (try? FileManager.default.attributesOfItem(atPath: target)) != nil {
                guard ExtensionFiles.version(ofExtensionAt: target) != nil else {
                    throw RemoteError(code: .other("not_ours"), message: "\(target) is not the pi-relayd extension; left as it is")
                }
                try FileManager.default.removeItem(atPath: target)
                removed.append(target)
            }
            if ExtensionFiles.version(ofFileAt: old) != nil {
                try FileManager.default.removeItem(atPath: old)
                removed.append(old)
            }
            guard !removed.isEmpty else {
                output.emit(["removed": .null, "path": .string(target)]) { "the pi-relayd extension is not installed at \(target)" }
                return
            }
            output.emit(["removed": .string(removed[0]), "removedAll": .array(removed.map { .string($0) })]) {
                removed.map { "removed \($0)" }.joined(separator: "\n") + "\nA running pi keeps it until it quits or runs /reload."
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
