#if canImport(Glibc)
import Glibc
#endif

/// Writes to stdout and stderr with write(2). `FileHandle` is not in FoundationEssentials, and its
/// `write` traps on EPIPE, which crashed a plugin logging its own shutdown once nobody read stderr.
package enum StandardStreams {
    package static func writeOutput(_ text: String) { writeAll(1, Array(text.utf8)) }

    package static func writeOutput(_ bytes: [UInt8]) { writeAll(1, bytes) }

    package static func writeError(_ text: String) { writeAll(2, Array(text.utf8)) }

    package static func writeError(_ bytes: [UInt8]) { writeAll(2, bytes) }

    /// Errors are ignored: whoever reads the other end has gone, and there is nobody left to tell.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        _ = WholeWrite.write(fd, bytes)
    }
}
