#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file, telling "there is none" from "it cannot be read". State loaded as
/// empty when it merely could not be read (a root-owned file after a `sudo`, an I/O error, a
/// folder where the file should be) is saved over at the next change, and all of it is lost.
///
/// Opened once and checked with fstat, so the file checked is the file read; O_NONBLOCK keeps a
/// FIFO at that path from hanging the reader.
package enum WholeRead {
    package struct Contents: Sendable {
        package let bytes: [UInt8]
        /// Permission bits (`st_mode & 0o7777`) and owner of the file read.
        package let permissions: UInt32
        package let owner: UInt32
    }

    package struct Failure: Error, CustomStringConvertible {
        package enum Reason: Sendable, Equatable {
            case system(Int32)
            case notRegular
            /// Larger than the caller's limit, at open or while it was read.
            case tooLarge
        }

        package let path: String
        package let reason: Reason

        package var description: String {
            switch reason {
            case .system(let code): "cannot read \(path): \(String(cString: strerror(code)))"
            case .notRegular: "cannot read \(path): it is not a regular file"
            case .tooLarge: "cannot read \(path): it is too large"
            }
        }
    }

    /// The file; nil only when nothing is at `path` (ENOENT).
    package static func contents(_ path: String, limit: Int = .max) throws(Failure) -> Contents? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(path: path, reason: .system(code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(path: path, reason: .system(errno)) }
        guard (UInt32(info.st_mode) & UInt32(S_IFMT)) == UInt32(S_IFREG) else { throw Failure(path: path, reason: .notRegular) }
        guard Int(info.st_size) <= limit else { throw Failure(path: path, reason: .tooLarge) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: .system(errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw Failure(path: path, reason: .tooLarge) }
        }
        return Contents(bytes: bytes, permissions: UInt32(info.st_mode) & 0o7777, owner: UInt32(info.st_uid))
    }
}
