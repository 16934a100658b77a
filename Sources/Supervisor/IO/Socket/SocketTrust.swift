import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Whether a control socket may be talked to, and a home used: whoever can put a socket where
/// the CLI connects reads its prompts and answers its approvals, and a home another user owns
/// or may write to lets them do that. The same rule as the extension's (`socketTrustProblem` in
/// extension/pi-relayd/link.ts): the folder is ours and only we may write to it; the socket is
/// ours. Nil when all is well, or when nothing is there yet.
package enum SocketTrust {
    /// What `stat` says of a file: its owner and mode.
    package struct Owner: Sendable, Equatable {
        package var uid: UInt32
        package var mode: UInt32

        package init(uid: UInt32, mode: UInt32) {
            self.uid = uid
            self.mode = mode
        }

        /// `path` as `stat` sees it, or with `following: false` as `lstat` does (a socket is not
        /// a link to follow; a home may well be one); nil when there is nothing.
        package init?(path: String, following: Bool = true) {
            var info = stat()
            guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
            self.init(uid: info.st_uid, mode: info.st_mode)
        }
    }

    /// The problem with the socket at `path` and its folder, for a user `uid`.
    package static func problem(socket path: String, uid: UInt32 = geteuid()) -> String? {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        return problem(folder: folder, owner: Owner(path: folder), socket: path, socketOwner: Owner(path: path, following: false), uid: uid)
    }

    /// The same, pure: what `stat` said of each.
    package static func problem(folder: String, owner: Owner?, socket: String, socketOwner: Owner?, uid: UInt32) -> String? {
        if let problem = problem(home: folder, owner: owner, uid: uid) { return problem }
        if let socketOwner, socketOwner.uid != uid { return "\(socket) is not yours (it belongs to uid \(socketOwner.uid))" }
        return nil
    }

    /// The problem with a home folder: another user's, or one others may write to.
    package static func problem(home folder: String, owner: Owner?, uid: UInt32) -> String? {
        guard let owner else { return nil }
        if owner.uid != uid { return "\(folder) is not yours (it belongs to uid \(owner.uid))" }
        if owner.mode & 0o022 != 0 { return "others may write to \(folder)" }
        return nil
    }
}
