import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so readers see the old or the new content, never a torn one: write a temp file
/// beside it, fsync, rename. Files are owner-only because state holds conversation text.
///
/// `durable: false` leaves out the fsync. The file then survives its writer's crash (the kernel
/// has it) but maybe not the machine's: for state rewritten several times a second whose loss
/// costs little, such as a plugin's live answers or a gateway's resume point.
package enum AtomicFile {
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, durable: Bool = true) -> Bool {
        (try? writeOrThrow(bytes, to: path, durable: durable)) != nil
    }

    package struct WriteError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    package static func writeOrThrow(_ bytes: [UInt8], to path: String, durable: Bool = true) throws {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(description: "cannot create \(tmp): \(String(cString: strerror(errno)))") }
        let ok = WholeWrite.write(fd, bytes)
        let err = errno
        if !ok || (durable && fsync(fd) != 0) {
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
