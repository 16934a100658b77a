/// How big the pipe from a fast writer gets. Linux gives a pipe 64 KiB; a child that writes
/// faster than that between two of our reads (pi sending a large tool result, a stream read
/// in one go) blocks on the full pipe, and each 64 KiB costs both sides a wake-up. A read that
/// finds the pipe full grows it to 1 MiB, and a read that finds less than the pipe's first size
/// in it shrinks it back to that, so a quiet pipe holds no more than any other.
///
/// What a user may have in pipe buffers is bounded (`/proc/sys/fs/pipe-user-pages-soft`, 64
/// MiB by default), and past it Linux gives every new pipe only 8 KiB: so at most `maxGrown`
/// pipes are grown at once, a quarter of that default. A pure policy: the caller resizes the
/// pipe (`PipeCapacity`) and says what it got.
package struct PipeGrowth: Sendable {
    /// Linux's default pipe capacity with 4 KiB pages; a read takes at least this much.
    package static let standard = 64 << 10
    /// The capacity a pipe found full grows to: `/proc/sys/fs/pipe-max-size`'s default, the
    /// most an unprivileged process may ask for.
    package static let grown = 1 << 20
    package static let maxGrown = 16

    /// Pipes this policy grew that are still grown.
    package private(set) var grownPipes = 0

    package init() {}

    /// The capacity to give `pipe` after one read took `bytes` from it, or nil to leave it. The
    /// reader's buffer must take `grown` bytes at once.
    package func afterRead(_ bytes: Int, pipe: PipeSize) -> Int? {
        if bytes >= pipe.capacity && pipe.capacity < Self.grown && grownPipes < Self.maxGrown { return Self.grown }
        if pipe.grown && bytes < pipe.standard { return pipe.standard }
        return nil
    }

    /// `pipe` has `capacity` bytes now (what it had when Linux refused).
    package mutating func resized(_ pipe: inout PipeSize, to capacity: Int) {
        pipe.capacity = capacity
        let grownNow = capacity > pipe.standard
        guard grownNow != pipe.grown else { return }
        grownPipes += grownNow ? 1 : -1
        pipe.grown = grownNow
    }

    /// `pipe` was closed.
    package mutating func closed(_ pipe: PipeSize) {
        if pipe.grown { grownPipes -= 1 }
    }
}
