import ArgumentParser
import FoundationEssentials
import PiRelaySDK

struct ExtensionStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say where the extension is installed and whether it matches this pi-relayd.",
        discussion: "Exit status: 0 when an installed copy matches this pi-relayd, 1 when none is installed or it differs.")
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let files = ExtensionFiles()
        let target = files.target(project: location.project)
        let shipped = try? files.shipped()
        let installed = FileManager.default.fileExists(atPath: target)
        let version = installed ? ExtensionFiles.version(ofFileAt: target) : nil
        let sameBytes = installed && shipped.map { FileManager.default.contentsEqual(atPath: $0, andPath: target) } == true
        let current = version == Version.current && sameBytes
        var state: JSONValue = [
            "path": .string(target), "installed": .bool(installed), "version": JSONValue(version), "daemonVersion": .string(Version.current),
            "current": .bool(current), "shipped": JSONValue(shipped),
        ]
        if installed && version == nil { state["note"] = "a file of that name that is not the pi-relayd extension" }
        output.emit(state) {
            guard installed else {
                return "not installed at \(target)\ninstall it with: pi-relayd extension install"
                    + (location.project.map { " --project \($0)" } ?? "")
            }
            guard let version else { return "\(target) is not the pi-relayd extension" }
            if current { return "installed at \(target), version \(version): matches this pi-relayd" }
            let why = version == Version.current ? "its file differs from the one shipped" : "this pi-relayd is \(Version.current)"
            return "installed at \(target), version \(version), but \(why)\nupdate it with: pi-relayd extension install"
                + (location.project.map { " --project \($0)" } ?? "")
        }
        if !current { throw ExitCode(1) }
    }
}
