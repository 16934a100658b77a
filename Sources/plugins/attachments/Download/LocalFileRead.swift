import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Reads an attachment given as a local path (sent from the terminal), with the download cap.
enum LocalFileRead {
    /// A file inside `spoolDir` was handed over through the spool and is removed once read (§8 of
    /// the protocol); any other path is the user's own file and is left alone.
    static func read(path: String, maxBytes: Int, spoolDir: String?) async -> Result<Download, DownloadFailure> {
        await DedicatedThread.run("attachments-read") {
            let result = readNow(path: path, maxBytes: maxBytes)
            if let spoolDir, path.resolvesInside(spoolDir) { unlink(path) }
            return result
        }
    }

    static func readNow(path: String, maxBytes: Int) -> Result<Download, DownloadFailure> {
        // O_NONBLOCK: opening a FIFO someone named as an attachment must not hang the thread.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(failure(errno)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(failure(errno)) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile) }
        guard Int(st.st_size) <= maxBytes else { return .failure(.tooLarge(limit: maxBytes)) }
        // Reads on past st_size (up to one byte over the cap) so a file that grew since fstat is caught.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= maxBytes {
            let bytesRead = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if bytesRead < 0 && errno == EINTR { continue }
            if bytesRead < 0 { return .failure(failure(errno)) }
            if bytesRead == 0 { break }
            bytes.append(contentsOf: chunk[0..<bytesRead])
        }
        guard bytes.count <= maxBytes else { return .failure(.tooLarge(limit: maxBytes)) }
        return .success(Download(bytes: bytes, contentType: nil))
    }

    private static func failure(_ code: Int32) -> DownloadFailure {
        switch code {
        case ENOENT, ENOTDIR: return .notFound
        case EACCES, EPERM: return .permissionDenied
        case EISDIR: return .notAFile
        default: return .other(String(cString: strerror(code)))
        }
    }
}
