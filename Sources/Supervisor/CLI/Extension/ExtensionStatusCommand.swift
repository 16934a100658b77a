import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ExtensionStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say where the extension is installed and whether it matches this pi-relayd.",
        discussion:
            "Exit status: 0 when an installed copy matches this pi-relayd, 1 when none is installed, it differs, or an older pi-relayd's single-file copy is still there."
    )
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let files = ExtensionFiles()
        let target = files.target(project: location.project)
        let shipped = try? files.shippedFolder()
        let installed = (try? FileManager.default.attributesOfItem(atPath: target)) != nil
        let version = installed ? ExtensionFiles.version(ofExtensionAt: target) : nil
        // pi-relayd before the extension became a folder installed one file; pi loads it too.
        let oldFile = files.singleFile(project: location.project)
        let oldVersion = ExtensionFiles.version(ofFileAt: oldFile)
        let sameFiles = installed && shipped.map { ExtensionFiles.sameFiles($0, target) } == true
        let current = version == Version.current && sameFiles && oldVersion == nil
        var state: JSONValue = [
            "path": .string(target), "installed": .bool(installed), "version": JSONValue(version), "daemonVersion": .string(Version.current),
            "current": .bool(current), "shipped": JSONValue(shipped), "oldCopy": JSONValue(oldVersion == nil ? nil : oldFile),
        ]
        if installed && version == nil { state["note"] = "a folder of that name that is not the pi-relayd extension" }
        let update = "update it with: pi-relayd extension install" + (location.project.map { " --project \($0)" } ?? "")
        output.emit(state) {
            guard installed else {
                if let oldVersion {
                    return "an older pi-relayd's single-file copy is installed at \(oldFile), version \(oldVersion); the extension is a folder now\n"
                        + update
                }
                return "not installed at \(target)\ninstall it with: pi-relayd extension install"
                    + (location.project.map { " --project \($0)" } ?? "")
            }
            guard let version else { return "\(target) is not the pi-relayd extension" }
            if current { return "installed at \(target), version \(version): matches this pi-relayd" }
            if let oldVersion, version == Version.current, sameFiles {
                return "installed at \(target), version \(version), but an older single-file copy (\(oldVersion)) is still at "
                    + "\(oldFile) and pi loads it too\n" + update
            }
            let why = version == Version.current ? "its files differ from the ones shipped" : "this pi-relayd is \(Version.current)"
            return "installed at \(target), version \(version), but \(why)\n" + update
        }
        if !current { throw ExitCode(1) }
    }
}
