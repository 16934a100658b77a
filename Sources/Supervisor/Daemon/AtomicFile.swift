import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so readers see the old or the new content, never a torn one: write a temp file
/// beside it, fsync, rename. Files are owner-only because state holds conversation text.
package enum AtomicFile {
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String) -> Bool {
        (try? writeOrThrow(bytes, to: path)) != nil
    }

    package struct WriteError: Error, CustomStringConvertible {
        package let description: String
    }

    package static func writeOrThrow(_ bytes: [UInt8], to path: String) throws {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(description: "cannot create \(tmp): \(String(cString: strerror(errno)))") }
        var off = 0
        let ok = bytes.withUnsafeBytes { buf -> Bool in
            while off < buf.count {
                let written = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if written < 0 { if errno == EINTR { continue }; return false }
                off += written
            }
            return true
        }
        let err = errno
        if !ok || fsync(fd) != 0 {
            close(fd)
            unlink(tmp)
            throw WriteError(description: "cannot write \(path): \(String(cString: strerror(ok ? errno : err)))")
        }
        close(fd)
        guard rename(tmp, path) == 0 else {
            unlink(tmp)
            throw WriteError(description: "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }
}
