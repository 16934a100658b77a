/// How big the pipe from a fast writer gets. Linux gives a pipe 64 KiB; a child that writes
/// faster than that between two of our reads (pi sending a large tool result, a stream read
/// in one go) blocks on the full pipe, and each 64 KiB costs both sides a wake-up. A read that
/// finds the pipe full grows it to 1 MiB, and a read that finds less than the standard 64 KiB
/// in it shrinks it back, so a quiet pipe holds no more than any other.
///
/// What a user may have in pipe buffers is bounded (`/proc/sys/fs/pipe-user-pages-soft`, 64
/// MiB by default), and past it Linux gives every new pipe only 8 KiB: so at most `maxGrown`
/// pipes are grown at once, a quarter of that default. A pure policy: the caller resizes the
/// pipe (`PipeCapacity`) and says what it got.
package struct PipeGrowth: Sendable {
    /// Linux's default pipe capacity.
    package static let standard = 64 << 10
    /// The capacity a pipe found full grows to: `/proc/sys/fs/pipe-max-size`'s default, the
    /// most an unprivileged process may ask for.
    package static let grown = 1 << 20
    package static let maxGrown = 16

    /// Pipes now larger than `standard` through this policy.
    package private(set) var grownPipes = 0

    package init() {}

    /// The capacity to give a pipe of `capacity` bytes from which one read took `bytes`, or nil
    /// to leave it. The reader's buffer must take `grown` bytes at once.
    package func afterRead(_ bytes: Int, capacity: Int) -> Int? {
        if bytes >= capacity && capacity < Self.grown && grownPipes < Self.maxGrown { return Self.grown }
        if capacity > Self.standard && bytes < Self.standard { return Self.standard }
        return nil
    }

    /// A pipe went from `old` to `new` bytes (the same when Linux refused).
    package mutating func resized(from old: Int, to new: Int) {
        if old <= Self.standard && new > Self.standard { grownPipes += 1 }
        if old > Self.standard && new <= Self.standard { grownPipes -= 1 }
    }

    /// A pipe of `capacity` bytes was closed.
    package mutating func closed(capacity: Int) {
        if capacity > Self.standard { grownPipes -= 1 }
    }
}
