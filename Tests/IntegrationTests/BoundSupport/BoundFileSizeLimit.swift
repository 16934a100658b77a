#if canImport(Glibc)
import Glibc
#endif

/// RLIMIT_FSIZE on a running process, set from outside with prlimit(2): past the limit a write
/// fails with EFBIG (and raises SIGXFSZ), which is how a full disk looks to the daemon's writes,
/// without root, a tiny filesystem or FUSE. Processes the daemon starts afterwards inherit it.
enum BoundFileSizeLimit {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private typealias PRLimit = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32

    /// glibc has prlimit, but the Glibc module does not export it (a GNU extension); look it up.
    private static let prlimit: PRLimit? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit") else { return nil }
        return unsafeBitCast(symbol, to: PRLimit.self)
    }()

    /// Sets the soft limit (nil: none), keeping the hard one.
    static func set(_ pid: Int32, bytes: UInt64?) throws {
        guard let prlimit else { throw Failure(description: "this libc has no prlimit") }
        let resource = Int32(RLIMIT_FSIZE.rawValue)
        var limit = rlimit()
        guard prlimit(pid, resource, nil, &limit) == 0 else { throw failure(pid) }
        limit.rlim_cur = bytes.map { min(rlim_t($0), limit.rlim_max) } ?? limit.rlim_max
        guard prlimit(pid, resource, &limit, nil) == 0 else { throw failure(pid) }
    }

    private static func failure(_ pid: Int32) -> Failure {
        Failure(description: "prlimit(\(pid), RLIMIT_FSIZE): \(String(cString: strerror(errno)))")
    }
}
