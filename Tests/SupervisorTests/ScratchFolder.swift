import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder for one test, removed when the test lets go of it.
final class ScratchFolder {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/supervisor-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to `name` with exactly `mode` (chmod after the write, past the umask).
    @discardableResult
    func write(_ name: String, _ contents: String = "#!/bin/sh\nexit 0\n", mode: mode_t = 0o755) throws -> String {
        let file = path + "/" + name
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        guard chmod(file, mode) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        return file
    }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? ""
    }
}
