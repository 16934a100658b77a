import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// An append-only log file with size-based rotation (`x.log`, `x.log.1` ... `x.log.N`).
/// Writes are short local-file writes under a lock; a failing disk is counted and reported,
/// never fatal, so the daemon keeps relaying when `logs/` fills up.
package final class RotatingLog: @unchecked Sendable {
    package let path: String
    package let maxBytes: Int
    package let keep: Int
    private let lock = ThreadLock()
    private var fd: Int32 = -1
    private var size = 0
    package private(set) var writeFailures = 0
    private var lastFailure: String?

    /// The longest piece of one line written as one entry, in UTF-8 bytes.
    package static let pieceBytes = 4000

    package init(path: String, maxBytes: Int = 10 << 20, keep: Int = 5) {
        self.path = path
        self.maxBytes = max(4096, maxBytes)
        self.keep = max(0, keep)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Appends one timestamped line per input line. Long lines are cut into pieces of at most
    /// `pieceBytes` bytes on character boundaries, and a file is rotated between entries, so no
    /// line (a plugin's 64 KiB stderr line, say) can carry a file past `maxBytes`.
    package func append(_ text: String) {
        let stamp = Array((Self.timestamp() + " ").utf8)
        let room = min(Self.pieceBytes, maxBytes - stamp.count - 1)
        var entries: [[UInt8]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for piece in Self.pieces(Array(line.utf8), maxBytes: room) {
                entries.append(stamp + piece + [0x0A])
            }
        }
        write(entries)
    }

    /// `bytes` (valid UTF-8) cut into pieces of at most `maxBytes`, never inside a character's
    /// bytes; an empty line is one empty piece.
    package static func pieces(_ bytes: [UInt8], maxBytes: Int) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        repeat {
            var end = min(bytes.count, start + maxBytes)
            // Back off continuation bytes (10xxxxxx) so the cut falls before a character's first byte.
            while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            out.append(bytes[start..<end])
            start = end
        } while start < bytes.count
        return out
    }

    /// The latest failure to write, if any (for `status`).
    package var failure: String? {
        lock.lock(); defer { lock.unlock() }
        return lastFailure
    }

    /// Writes the entries in order, in as few writes as the rotations allow.
    private func write(_ entries: [[UInt8]]) {
        lock.lock()
        defer { lock.unlock() }
        var batch: [UInt8] = []
        for entry in entries {
            if fd < 0 { openFile() }
            if size + batch.count + entry.count > maxBytes, size + batch.count > 0 {
                flush(batch)
                batch.removeAll(keepingCapacity: true)
                rotate()
            }
            batch += entry
        }
        flush(batch)
    }

    private func flush(_ bytes: [UInt8]) {
        guard fd >= 0, !bytes.isEmpty else { return }
        var written = 0
        let ok = bytes.withUnsafeBytes { buf -> Bool in
            while written < buf.count {
                let chunkWritten = Glibc.write(fd, buf.baseAddress! + written, buf.count - written)
                if chunkWritten < 0 { if errno == EINTR { continue }; return false }
                written += chunkWritten
            }
            return true
        }
        // A full disk may take part of a write: count it, so the next rotation comes in time.
        size += written
        if ok {
            lastFailure = nil
        } else {
            writeFailures += 1
            lastFailure = "cannot write \(path): \(String(cString: strerror(errno)))"
        }
    }

    private func openFile() {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if fd < 0 {
            lastFailure = "cannot open \(path): \(String(cString: strerror(errno)))"
            return
        }
        var st = stat()
        size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
    }

    private func rotate() {
        if fd >= 0 { close(fd); fd = -1 }
        if keep == 0 {
            // No rotated files: start the log afresh.
            unlink(path)
        } else {
            unlink(path + ".\(keep)")
            for generation in stride(from: keep - 1, through: 1, by: -1) {
                rename(path + ".\(generation)", path + ".\(generation + 1)")
            }
            rename(path, path + ".1")
        }
        openFile()
    }

    package static func timestamp() -> String {
        var tv = timeval()
        gettimeofday(&tv, nil)
        var seconds = tv.tv_sec
        var tmv = tm()
        gmtime_r(&seconds, &tmv)
        let date = [String(tmv.tm_year + 1900), String(tmv.tm_mon + 1).leftPadded(to: 2), String(tmv.tm_mday).leftPadded(to: 2)]
        let time = [tmv.tm_hour, tmv.tm_min, tmv.tm_sec].map { String($0).leftPadded(to: 2) }
        return date.joined(separator: "-") + "T" + time.joined(separator: ":") + "." + String(tv.tv_usec / 1000).leftPadded(to: 3) + "Z"
    }
}
