import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder under /tmp, removed when the value goes away.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/attachments-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` at `relative`, creating folders on the way; returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8]) -> String {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try! Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    @discardableResult
    func folder(_ relative: String) -> String {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }

    /// Creates a symbolic link at `relative` pointing to `target` (absolute or relative).
    func link(_ relative: String, to target: String) {
        precondition(symlink(target, path + "/" + relative) == 0, "symlink failed")
    }
}
