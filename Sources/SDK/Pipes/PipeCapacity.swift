#if canImport(Glibc)
import Glibc
#endif

/// A pipe's capacity in bytes (fcntl F_GETPIPE_SZ and F_SETPIPE_SZ, Linux 2.6.35 and later).
package enum PipeCapacity {
    // <fcntl.h> declares these only for _GNU_SOURCE, which Swift's Glibc module is not built
    // with; they are Linux's ABI (F_LINUX_SPECIFIC_BASE + 7 and + 8).
    private static let setCommand: Int32 = 1031
    private static let getCommand: Int32 = 1032

    /// `fd`'s pipe capacity, or nil when `fd` is no pipe.
    package static func of(_ fd: Int32) -> Int? {
        #if os(Linux)
        let bytes = fcntl(fd, getCommand)
        return bytes > 0 ? Int(bytes) : nil
        #else
        return nil
        #endif
    }

    /// Asks for `bytes` (Linux rounds up to a power of two pages); the capacity `fd`'s pipe has
    /// now, or nil when Linux refused (over the user's pipe limits, still holding more than
    /// `bytes`) or `fd` is no pipe.
    package static func set(_ fd: Int32, to bytes: Int) -> Int? {
        #if os(Linux)
        let got = fcntl(fd, setCommand, Int32(clamping: bytes))
        return got > 0 ? Int(got) : nil
        #else
        return nil
        #endif
    }
}

extension PipeCapacity {
    /// Resizes `fd`'s pipe as `growth` answers after a read of `bytes` from it; the pipe as it
    /// is now, or nil when Linux refused to grow it: a user past its pipe budget stays past it,
    /// and asking again at every full read would be a system call each. A shrink refused (the
    /// pipe took more meanwhile) is tried again at the next short read.
    package static func adjust(_ fd: Int32, pipe: PipeSize, afterRead bytes: Int, growth: inout PipeGrowth) -> PipeSize? {
        guard let wanted = growth.afterRead(bytes, pipe: pipe) else { return pipe }
        guard let now = set(fd, to: wanted) else { return wanted > pipe.capacity && !pipe.grown ? nil : pipe }
        var pipe = pipe
        growth.resized(&pipe, to: now)
        return pipe
    }
}
