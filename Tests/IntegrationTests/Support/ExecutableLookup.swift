import Foundation

/// A command on the test process's PATH, as the shell finds it.
enum ExecutableLookup {
    static func find(_ name: String, path: String = ProcessInfo.processInfo.environment["PATH"] ?? "") -> String? {
        path.split(separator: ":").map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
