import FoundationEssentials

/// The user's home and temporary folders, as the environment names them.
package enum UserFolders {
    /// `$HOME`, else the password database's entry: tests and services set HOME to move it.
    package static var home: String {
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// `$TMPDIR` without a trailing slash, else `/tmp`.
    package static var temporary: String {
        var folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder.isEmpty ? "/tmp" : folder
    }
}
