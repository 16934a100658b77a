import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A file replaced whole: written to `PATH.tmp` (mode 0600), then renamed over the old one, so
/// a process killed mid-write leaves the previous version intact.
package enum AtomicFile {
    /// `durable: false` leaves out the flush to the disk (`FileManager.createFile` flushes): the
    /// file then survives the process's crash, since the kernel has it, but maybe not the
    /// machine's. False when the disk refused.
    package static func replace(_ path: String, with data: Data, durable: Bool) -> Bool {
        let temporary = path + ".tmp"
        let written =
            durable
            ? FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
            : write(data, to: temporary)
        return written && rename(temporary, path) == 0
    }

    /// Writes `data` to a new file at `path`, mode 0600, with no flush.
    private static func write(_ data: Data, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var complete = true
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, base + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    complete = false
                    return
                }
                offset += count
            }
        }
        return close(fd) == 0 && complete
    }
}
