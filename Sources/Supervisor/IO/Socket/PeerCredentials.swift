import CLinux
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The process on the other end of a Unix socket, from `SO_PEERCRED`: the kernel's word, which a
/// client cannot forge. Attaching a session needs the daemon's own uid (docs/SECURITY.md).
package struct PeerCredentials: Sendable, Equatable {
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32

    /// Whether this peer runs as the daemon's own user.
    package func isOwner(uid ownUID: UInt32 = getuid()) -> Bool { uid == ownUID }
}

extension PeerCredentials {
    package init?(socket fd: Int32) {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard pi_relayd_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return nil }
        self.init(pid: pid, uid: uid, gid: gid)
    }
}
