import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An append-only log file with size-based rotation (`x.log`, `x.log.1` ... `x.log.N`).
/// Writes are short local-file writes under a lock; a failing disk is counted and reported,
/// never fatal, so the daemon keeps relaying when `logs/` fills up.
final class RotatingLog: @unchecked Sendable {
    let path: String
    let maxBytes: Int
    let keep: Int
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var size = 0
    private(set) var writeFailures = 0
    private var lastFailure: String?

    init(path: String, maxBytes: Int = 10 << 20, keep: Int = 5) {
        self.path = path
        self.maxBytes = max(4096, maxBytes)
        self.keep = max(1, keep)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Appends one timestamped line per input line; long lines are split so one runaway line
    /// cannot make a single huge entry.
    func append(_ text: String) {
        let stamp = Self.timestamp()
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            repeat {
                let piece = rest.prefix(4000)
                rest = rest.dropFirst(piece.count)
                out += stamp + " " + piece + "\n"
            } while !rest.isEmpty
        }
        write(Array(out.utf8))
    }

    /// The latest failure to write, if any (for `status`).
    var failure: String? {
        lock.lock(); defer { lock.unlock() }
        return lastFailure
    }

    private func write(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if fd < 0 { openFile() }
        if size + bytes.count > maxBytes && size > 0 { rotate() }
        guard fd >= 0 else { return }
        let ok = bytes.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        if ok {
            size += bytes.count
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
        unlink(path + ".\(keep)")
        if keep > 1 {
            for i in stride(from: keep - 1, through: 1, by: -1) {
                rename(path + ".\(i)", path + ".\(i + 1)")
            }
        }
        rename(path, path + ".1")
        openFile()
    }

    static func timestamp() -> String {
        var tv = timeval()
        gettimeofday(&tv, nil)
        var t = tv.tv_sec
        var tmv = tm()
        gmtime_r(&t, &tmv)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tmv.tm_year + 1900, tmv.tm_mon + 1, tmv.tm_mday,
                      tmv.tm_hour, tmv.tm_min, tmv.tm_sec, Int(tv.tv_usec / 1000))
    }
}
