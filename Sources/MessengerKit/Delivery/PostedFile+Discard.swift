import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

extension Sequence where Element == PostedFile {
    /// Removes the copies the supervisor spooled for a post the platform refused for good: they
    /// are this post's alone, and the receiver removes them (protocol §8), sent or not. Kept,
    /// each refused post would leave its files in the spool for good.
    public func discard() {
        for file in self { unlink(file.path) }
    }
}
