#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Diagnostics go to fd 2 with write(2): the C `stderr` global is shared mutable state that
/// Swift 6's strict concurrency rejects.
enum StandardError {
    static func emit(_ text: String) {
        var copy = text
        copy.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
