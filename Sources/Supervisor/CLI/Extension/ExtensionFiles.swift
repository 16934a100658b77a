import FoundationEssentials
import PiRelaySDK

/// Where the pi extension comes from and where pi looks for it (docs/EXTENSION.md). Installing
/// copies the file, so a later pi-relayd upgrade shows as a version mismatch in `status`
/// instead of changing a running pi's extension under it.
struct ExtensionFiles: Sendable {
    static let fileName = "pi-relayd.ts"

    let environment: [String: String]
    /// The running executable, symlinks resolved.
    let executable: String

    init(environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = nil) {
        self.environment = environment
        self.executable = executable ?? ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    struct NotFound: Error, CustomStringConvertible {
        let looked: [String]
        var description: String {
            "cannot find the pi extension shipped with this pi-relayd (looked at \(looked.joined(separator: ", "))); "
                + "set PI_RELAYD_EXTENSION to the path of pi-relayd.ts"
        }
    }

    /// The places the shipped copy may be, in order: `$PI_RELAYD_EXTENSION`; an installed
    /// layout (`bin/../share/pi-relayd/`); a checkout, found upwards from the executable
    /// (`.build/debug/pi-relayd` → `extension/`).
    var candidates: [String] {
        var paths: [String] = []
        if let explicit = environment["PI_RELAYD_EXTENSION"], !explicit.isEmpty { return [explicit] }
        var folder = executable.parentPath
        paths.append(folder.parentPath + "/share/pi-relayd/" + Self.fileName)
        for _ in 0..<5 {
            paths.append(folder + "/extension/" + Self.fileName)
            folder = folder.parentPath
            if folder == "/" || folder.isEmpty { break }
        }
        return paths
    }

    func shipped() throws(NotFound) -> String {
        let looked = candidates
        guard let found = looked.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else { throw NotFound(looked: looked) }
        return found.standardizedPath
    }

    /// pi's agent folder: `$PI_CODING_AGENT_DIR` (a leading `~` expanded, as pi does), else
    /// `~/.pi/agent`.
    var agentDir: String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserFolders.home
        if let dir = environment["PI_CODING_AGENT_DIR"], !dir.isEmpty {
            if dir == "~" { return home }
            if dir.hasPrefix("~/") { return home + dir.dropFirst() }
            return Home.absolute(dir)
        }
        return home + "/.pi/agent"
    }

    /// Where `install` puts the extension: the agent folder's `extensions/`, or a project's
    /// `.pi/extensions/`; pi discovers both.
    func target(project: String?) -> String {
        if let project { return Home.absolute(project) + "/.pi/extensions/" + Self.fileName }
        return agentDir + "/extensions/" + Self.fileName
    }

    /// The `EXTENSION_VERSION` a copy declares, or nil when the file is not ours.
    static func version(ofFileAt path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return version(in: String(decoding: data, as: UTF8.self))
    }

    static func version(in text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.contains("EXTENSION_VERSION =") {
            let parts = line.split(separator: "\"")
            if parts.count >= 2 { return String(parts[1]) }
        }
        return nil
    }
}
