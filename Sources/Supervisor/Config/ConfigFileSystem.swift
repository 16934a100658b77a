#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the loader reaches the disk, replaceable in tests: a file owned by another user cannot be
/// created without root, so the owner check is tested with a fake `readFile`.
package struct ConfigFileSystem: Sendable {
    /// Reads a whole file with its owner and permissions; nil when it does not exist.
    package var readFile: @Sendable (_ path: String) throws(ConfigError) -> ConfigFile?
    /// The user pi-relayd runs as; files must belong to it.
    package var userID: UInt32

    package init(readFile: @escaping @Sendable (_ path: String) throws(ConfigError) -> ConfigFile?, userID: UInt32) {
        self.readFile = readFile
        self.userID = userID
    }

    package static var live: ConfigFileSystem {
        ConfigFileSystem(readFile: { path throws(ConfigError) in try readFromDisk(path) }, userID: UInt32(geteuid()))
    }

    /// Opens once and checks the opened file with fstat, so the file checked is the file read.
    /// O_NONBLOCK keeps a FIFO at that path from hanging the daemon; it does not affect regular
    /// files.
    package static func readFromDisk(_ path: String) throws(ConfigError) -> ConfigFile? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw unreadable(path, code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw unreadable(path, errno) }
        guard (UInt32(info.st_mode) & UInt32(S_IFMT)) == UInt32(S_IFREG) else {
            throw ConfigError(.unreadable, file: path, "cannot read \(path): it is not a regular file")
        }
        guard Int(info.st_size) <= ConfigFile.maximumSize else {
            throw ConfigError(
                .unreadable, file: path,
                "cannot read \(path): it is larger than \(ConfigFile.maximumSize / 1024) KiB, which no config file needs")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let bytesRead = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if bytesRead < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno)
            }
            if bytesRead == 0 { break }
            bytes.append(contentsOf: chunk[..<bytesRead])
            if bytes.count > ConfigFile.maximumSize {
                throw ConfigError(.unreadable, file: path, "cannot read \(path): it keeps growing past \(ConfigFile.maximumSize / 1024) KiB")
            }
        }
        return ConfigFile(
            path: path, bytes: bytes, permissions: UInt32(info.st_mode) & 0o7777,
            owner: UInt32(info.st_uid))
    }

    private static func unreadable(_ path: String, _ code: Int32) -> ConfigError {
        ConfigError(.unreadable, file: path, "cannot read \(path): \(String(cString: strerror(code)))")
    }
}
