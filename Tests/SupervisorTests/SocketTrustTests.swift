import Foundation
import SupervisorIO
import Testing

@testable import Supervisor

/// The CLI talks to a control socket, and the daemon uses a home, only when both are the user's
/// own and nobody else may write to the folder: whoever could put a socket there would read
/// the CLI's prompts and answer its approvals (the extension's `socketTrustProblem` is the same
/// rule). Pure: another user's files cannot be made without root.
@Suite struct SocketTrustTests {
    @Test func onlyTheUsersOwnFolderAndSocketAreTrusted() {
        let me: UInt32 = 1000
        let mine = SocketTrust.Owner(uid: me, mode: 0o040700)
        let socket = SocketTrust.Owner(uid: me, mode: 0o140600)
        #expect(SocketTrust.problem(folder: "/h", owner: mine, socket: "/h/relayd.sock", socketOwner: socket, uid: me) == nil)
        #expect(SocketTrust.problem(folder: "/h", owner: nil, socket: "/h/relayd.sock", socketOwner: nil, uid: me) == nil, "nothing there yet")
        #expect(
            SocketTrust.problem(
                folder: "/h", owner: SocketTrust.Owner(uid: 1001, mode: 0o040700), socket: "/h/relayd.sock", socketOwner: socket, uid: me)
                == "/h is not yours (it belongs to uid 1001)")
        #expect(
            SocketTrust.problem(
                folder: "/h", owner: SocketTrust.Owner(uid: me, mode: 0o041777), socket: "/h/relayd.sock", socketOwner: socket, uid: me)
                == "others may write to /h")
        #expect(
            SocketTrust.problem(folder: "/h", owner: mine, socket: "/h/relayd.sock", socketOwner: SocketTrust.Owner(uid: 0, mode: 0o140777), uid: me)
                == "/h/relayd.sock is not yours (it belongs to uid 0)")
    }

    /// The CLI refuses a socket in a folder others may write to, and says why, instead of
    /// talking to whoever answers there. (The daemon makes a home of its own owner-only before
    /// this check, and refuses another user's.)
    @Test func theCLIRefusesAFolderOthersMayWriteTo() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/socket-trust-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o777)
        let refused = #expect(throws: ControlClient.Untrusted.self) { try ControlClient.open(folder + "/relayd.sock") }
        #expect(refused?.description.contains("others may write to \(folder)") == true, "\(String(describing: refused))")
        chmod(folder, 0o700)
        #expect(throws: ControlClient.NotRunning.self) { try ControlClient.open(folder + "/relayd.sock") }
    }
}
