import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct ExtensionInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract:
            "Copy the extension's folder where pi finds it: ~/.pi/agent/extensions/pi-relayd/ (honouring PI_CODING_AGENT_DIR), or a project's with --project.",
        discussion: "An older pi-relayd's single-file copy there (extensions/pi-relayd.ts) is removed: pi would load it beside the folder.")
    @OptionGroup var location: ExtensionLocation
    @OptionGroup var output: OutputOptions

    func run() throws {
        let files = ExtensionFiles()
        do {
            let source = try files.shippedFolder()
            let target = files.target(project: location.project)
            if FileManager.default.fileExists(atPath: target), ExtensionFiles.version(ofExtensionAt: target) == nil {
                throw RemoteError(code: .other("exists"), message: "\(target) exists and is not the pi-relayd extension; move it away first")
            }
            guard let version = ExtensionFiles.version(ofExtensionAt: source) else {
                throw RemoteError(code: .other("unreadable"), message: "cannot read the extension's version in \(source)")
            }
            try Self.replace(target, withCopyOf: source)
            // The single file an older pi-relayd installed: pi discovers it beside the folder and
            // loads both (spec §1.1). A file of that name that is not ours stays.
            let old = files.singleFile(project: location.project)
            var removed: String?
            if ExtensionFiles.version(ofFileAt: old) != nil {
                try FileManager.default.removeItem(atPath: old)
                removed = old
            }
            output.emit(["installed": .string(target), "version": .string(version), "from": .string(source), "removedOldCopy": JSONValue(removed)]) {
                "installed the pi-relayd extension \(version) at \(target)\n"
                    + (removed.map { "removed the old single-file copy \($0) (the extension is a folder now)\n" } ?? "")
                    + "pi loads it when it next starts (or after /reload in a running pi)."
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }

    /// Copies the folder beside the target under a name pi skips (a leading dot, spec §1.1), then
    /// swaps it in: a pi starting meanwhile finds the old folder or the new one, never half of one.
    static func replace(_ target: String, withCopyOf source: String) throws {
        let parent = target.parentPath
        let staged = parent + "/.\(ExtensionFiles.folderName).new-\(getpid())"
        let previous = parent + "/.\(ExtensionFiles.folderName).old-\(getpid())"
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        for leftover in [staged, previous] where FileManager.default.fileExists(atPath: leftover) {
            try FileManager.default.removeItem(atPath: leftover)
        }
        try FileManager.default.copyItem(atPath: source, toPath: staged)
        if (try? FileManager.default.attributesOfItem(atPath: target)) != nil {
            try FileManager.default.moveItem(atPath: target, toPath: previous)
        }
        try FileManager.default.moveItem(atPath: staged, toPath: target)
        try? FileManager.default.removeItem(atPath: previous)
    }
}
