import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so readers see the old or the new content, never a torn one: write a temp file
/// beside it, fsync, rename, fsync the folder. Files are owner-only because state holds conversation text.
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
        // The rename is an entry in the folder: until the folder is synced, a power loss can
        // bring the old file back after a change was confirmed (a revoke, an unbind).
        if durable, !syncFolder(of: path) {
            throw WriteError(description: "cannot sync the folder of \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// fsyncs the folder `path` is in, so that a file made or renamed there outlives a power loss.
    /// A file system that cannot sync a folder (EINVAL, ENOTSUP) has nothing more to give: true.
    package static func syncFolder(of path: String) -> Bool {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fsync(fd) == 0 || errno == EINVAL || errno == ENOTSUP
    }
}
