#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to a blocking descriptor, again after EINTR and after a short write;
/// at `offset` (`pwrite`) when given. False at the first other failure, `errno` left as it said.
package enum WholeWrite {
    package static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int? = nil) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            var done = 0
            while done < buffer.count {
                let count =
                    offset.map { pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t($0 + done)) }
                    ?? Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if count == 0 { return false }
                done += count
            }
            return true
        }
    }
}
