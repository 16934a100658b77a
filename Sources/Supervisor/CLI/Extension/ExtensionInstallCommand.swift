import ArgumentParser
import FoundationEssentials
import PiRelaySDK

struct ExtensionInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Copy the extension where pi finds it: ~/.pi/agent/extensions/ (honouring PI_CODING_AGENT_DIR), or a project's with --project.")
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let files = ExtensionFiles()
        do {
            let source = try files.shipped()
            let target = files.target(project: location.project)
            if FileManager.default.fileExists(atPath: target), ExtensionFiles.version(ofFileAt: target) == nil {
                throw RemoteError(code: .other("exists"), message: "\(target) exists and is not the pi-relayd extension; move it away first")
            }
            try FileManager.default.createDirectory(
                atPath: target.parentPath, withIntermediateDirectories: true)
            guard let data = FileManager.default.contents(atPath: source) else {
                throw RemoteError(code: .other("unreadable"), message: "cannot read \(source)")
            }
            try AtomicFile.writeOrThrow([UInt8](data), to: target)
            let version = ExtensionFiles.version(in: String(decoding: data, as: UTF8.self)) ?? "?"
            output.emit(["installed": .string(target), "version": .string(version), "from": .string(source)]) {
                "installed the pi-relayd extension \(version) at \(target)\n"
                    + "pi loads it when it next starts (or after /reload in a running pi)."
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
