import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Copies a checked file into the spool folder. The messenger uploads the copy and deletes it
/// afterwards (protocol §8), so the user's own file is never removed, and a file changed after the
/// check cannot change what is sent.
enum SpoolCopy {
    /// Blocking: call it on a dedicated thread. Closes `file.fd`.
    static func copy(_ file: GuardedFile, into spoolDir: String, maxBytes: Int) -> Result<SpooledFile, RemoteError> {
        defer { close(file.fd) }
        try? FileManager.default.createDirectory(
            atPath: spoolDir, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let target = spoolDir + "/outbound-" + randomHex() + "-" + safeName(file.name)
        let out = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard out >= 0 else { return .failure(internalError("could not create a file in the spool folder", errno)) }
        var copied = 0
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var failure: RemoteError?
        while failure == nil {
            let bytesRead = chunk.withUnsafeMutableBytes { read(file.fd, $0.baseAddress!, $0.count) }
            if bytesRead < 0 && errno == EINTR { continue }
            if bytesRead < 0 { failure = internalError("could not read `\(file.name)`", errno); break }
            if bytesRead == 0 { break }
            copied += bytesRead
            if copied > maxBytes {
                failure = .invalidParams("`\(file.name)` grew past this chat's upload limit of \(ByteCount.describe(maxBytes)) while being sent")
                break
            }
            if head.count < 4096 { head.append(contentsOf: chunk[0..<min(bytesRead, 4096 - head.count)]) }
            if !writeAll(out, chunk, bytesRead) { failure = internalError("could not write to the spool folder", errno) }
        }
        close(out)
        if let failure {
            unlink(target)
            return .failure(failure)
        }
        return .success(SpooledFile(path: target, size: copied, head: head))
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, count - done) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            done += written
        }
        return true
    }

    private static func internalError(_ what: String, _ code: Int32) -> RemoteError {
        RemoteError(code: .internal, message: "\(what): \(String(cString: strerror(code)))")
    }

    private static func randomHex() -> String {
        (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    /// The spool name carries the file name only to make the spool folder readable to people.
    private static func safeName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" }.prefix(80))
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "file" + cleaned : cleaned
    }
}
