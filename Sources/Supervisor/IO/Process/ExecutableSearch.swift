import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Finds a command as the shell would: a path as it is (made absolute against the working
/// folder), a bare name in each PATH folder in turn.
package enum ExecutableSearch {
    package static func find(_ command: String, path: String) -> String? {
        if command.contains("/") {
            guard access(command, X_OK) == 0 else { return nil }
            return command.hasPrefix("/") ? command : FileManager.default.currentDirectoryPath + "/" + command
        }
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + command
            var isDirectory = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}
