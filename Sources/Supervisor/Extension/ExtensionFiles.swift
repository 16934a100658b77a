import FoundationEssentials
import PiRelaySDK

/// Where the pi extension comes from and where pi looks for it (docs/EXTENSION.md). The
/// extension is a folder of modules with `index.ts` as its entry, which pi discovers as a
/// subfolder of an extensions folder (pi extension spec §1.1). Installing copies the folder, so a
/// later pi-relayd upgrade shows as a version mismatch in `status` instead of changing a running
/// pi's extension under it.
package struct ExtensionFiles: Sendable {
    /// The folder's name, shipped and installed alike.
    package static let folderName = "pi-relayd"
    package static let entryName = "index.ts"
    /// The module that declares `EXTENSION_VERSION`.
    package static let versionFileName = "version.ts"
    /// What pi-relayd installed before the extension became a folder: one file beside where the
    /// folder goes. pi would load both (it de-duplicates by path only, spec §1.1), so installing
    /// the folder removes it.
    package static let singleFileName = "pi-relayd.ts"

    package let environment: [String: String]
    /// The running executable, symlinks resolved.
    package let executable: String

    package init(environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = nil) {
        self.environment = environment
        self.executable = executable ?? ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    package struct NotFound: Error, CustomStringConvertible {
        package let looked: [String]
        package var description: String {
            "cannot find the pi extension shipped with this pi-relayd (looked at \(looked.joined(separator: ", "))); "
                + "set PI_RELAYD_EXTENSION to its folder (the one with index.ts and version.ts)"
        }
    }

    /// The places the shipped entry file may be, in order: `$PI_RELAYD_EXTENSION` (the folder, its
    /// index.ts, or another single file for `pi -e`); an installed layout (`bin/../share/pi-relayd/pi-relayd/index.ts`); a
    /// checkout, found upwards from the executable (`.build/debug/pi-relayd` →
    /// `extension/pi-relayd/index.ts`).
    package var candidates: [String] {
        if let explicit = environment["PI_RELAYD_EXTENSION"], !explicit.isEmpty {
            var isDirectory = false
            let folder = FileManager.default.fileExists(atPath: explicit, isDirectory: &isDirectory) && isDirectory
            return [folder ? Self.entry(of: explicit) : explicit]
        }
        var paths: [String] = []
        var folder = executable.parentPath
        paths.append(Self.entry(of: folder.parentPath + "/share/pi-relayd/" + Self.folderName))
        for _ in 0..<5 {
            paths.append(Self.entry(of: folder + "/extension/" + Self.folderName))
            folder = folder.parentPath
            if folder == "/" || folder.isEmpty { break }
        }
        return paths
    }

    /// The shipped entry file (`…/pi-relayd/index.ts`): what `pi -e` and `extension path` name.
    package func shipped() throws(NotFound) -> String {
        let looked = candidates
        guard let found = looked.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else { throw NotFound(looked: looked) }
        return found.standardizedPath
    }

    /// The shipped folder, which `install` copies whole: the entry's, when it is an index.ts (a
    /// single file named by `PI_RELAYD_EXTENSION` is for `pi -e` only).
    package func shippedFolder() throws(NotFound) -> String {
        let entry = try shipped()
        guard entry.hasSuffix("/" + Self.entryName) else { throw NotFound(looked: [entry]) }
        return entry.parentPath
    }

    package static func entry(of folder: String) -> String {
        folder + "/" + entryName
    }

    /// pi's agent folder: `$PI_CODING_AGENT_DIR` (a leading `~` expanded, as pi does), else
    /// `~/.pi/agent`.
    package var agentDir: String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserFolders.home
        if let dir = environment["PI_CODING_AGENT_DIR"], !dir.isEmpty {
            if dir == "~" { return home }
            if dir.hasPrefix("~/") { return home + dir.dropFirst() }
            return Home.absolute(dir)
        }
        return home + "/.pi/agent"
    }

    /// The extensions folder `install` uses: the agent folder's `extensions/`, or a project's
    /// `.pi/extensions/`; pi discovers both.
    package func extensionsFolder(project: String?) -> String {
        if let project { return Home.absolute(project) + "/.pi/extensions" }
        return agentDir + "/extensions"
    }

    /// Where `install` puts the extension's folder.
    package func target(project: String?) -> String {
        extensionsFolder(project: project) + "/" + Self.folderName
    }

    /// Where an older pi-relayd installed the single-file extension.
    package func singleFile(project: String?) -> String {
        extensionsFolder(project: project) + "/" + Self.singleFileName
    }

    /// The `EXTENSION_VERSION` an extension declares, or nil when it is not ours: a folder's
    /// version.ts (or its index.ts), an index.ts's sibling version.ts, or a single file itself.
    package static func version(ofExtensionAt path: String) -> String? {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory {
            return version(ofFileAt: path + "/" + versionFileName) ?? version(ofFileAt: entry(of: path))
        }
        if let own = version(ofFileAt: path) { return own }
        return path.hasSuffix("/" + entryName) ? version(ofFileAt: path.parentPath + "/" + versionFileName) : nil
    }

    /// The `EXTENSION_VERSION` one file declares, or nil.
    package static func version(ofFileAt path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return version(in: String(decoding: data, as: UTF8.self))
    }

    package static func version(in text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.contains("EXTENSION_VERSION =") {
            let parts = line.split(separator: "\"")
            if parts.count >= 2 { return String(parts[1]) }
        }
        return nil
    }

    /// Whether two extension folders hold the same files with the same bytes: an installed copy
    /// with a module added, removed or changed is not the shipped one.
    package static func sameFiles(_ one: String, _ other: String) -> Bool {
        guard let mine = regularFiles(in: one), let theirs = regularFiles(in: other), mine == theirs else { return false }
        return mine.allSatisfy { FileManager.default.contentsEqual(atPath: one + "/" + $0, andPath: other + "/" + $0) }
    }

    /// The regular files under a folder, as sorted relative paths (symlinks followed, as pi does).
    private static func regularFiles(in folder: String) -> [String]? {
        guard let all = try? FileManager.default.subpathsOfDirectory(atPath: folder) else { return nil }
        return all.filter { path in
            var isDirectory = false
            return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory) && !isDirectory
        }.sorted()
    }
}
