import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The home's lock file (`state/pi-relayd.lock`), taken with `flock`. A daemon holds it for its
/// whole life. A command that edits state files with no daemon holds it while it edits, so that a
/// daemon starting meanwhile (it reads the files before its control socket answers) neither
/// reads half of the change nor saves what it read over the rest.
package enum HomeLock {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The open descriptor holding the lock, to be closed to let go; nil when another process
    /// holds it.
    package static func take(_ home: Home) throws(Failure) -> Int32? {
        let fd = open(home.lockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(home.lockFile): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
