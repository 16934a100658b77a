import FoundationEssentials

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// Finds a command as the shell would: a path as it is, a bare name in each PATH folder in turn.
enum ExecutableSearch {
    static func find(_ command: String, path: String) -> String? {
        if command.contains("/") { return access(command, X_OK) == 0 ? Home.absolute(command) : nil }
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
