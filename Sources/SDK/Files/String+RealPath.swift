#if canImport(Glibc)
import Glibc
#endif

/// Paths as the file system resolves them, and containment, the one rule for "inside a folder"
/// (the attachments guard, the dashboard's session roots): compare resolved paths, never names.
extension String {
    /// The absolute path with every symbolic link, `.` and `..` resolved; nil (with errno set)
    /// when it does not exist or cannot be reached.
    package var realPath: String? {
        guard let resolved = realpath(self, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether this path is `folder` or under it. Lexical: resolve both first where links matter.
    package func isWithin(_ folder: String) -> Bool {
        self == folder || hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// Whether this path names something under `folder` (not the folder itself), both resolved:
    /// `spool/../x` is not in the spool. False when either cannot be resolved.
    package func resolvesInside(_ folder: String) -> Bool {
        guard let path = realPath, let folder = folder.realPath else { return false }
        return path != folder && path.isWithin(folder)
    }
}
