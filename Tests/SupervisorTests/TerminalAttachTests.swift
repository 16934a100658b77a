import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor
@testable import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// Who may attach a terminal session, and what an attach request must say (docs/EXTENSION.md).
@Suite struct TerminalAttachTests {
    /// The kernel names the peer of a Unix socket: here, this very process.
    @Test func peerCredentialsNameTheProcessOnTheOtherEnd() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let peer = try #require(PeerCredentials(socket: fds[0]))
        #expect(peer.pid == getpid())
        #expect(peer.uid == getuid())
        #expect(peer.isOwner())
        #expect(PeerCredentials(socket: -1) == nil, "no socket, no credentials")
    }

    /// A second uid is not available where the tests run, so the rule is tested on its own.
    @Test func onlyTheDaemonsOwnUserMayAttach() throws {
        let owner = PeerCredentials(pid: 10, uid: 1000, gid: 1000)
        try TerminalAttach.admit(owner, ownerUID: 1000)
        for stranger in [PeerCredentials(pid: 11, uid: 1001, gid: 1000), PeerCredentials(pid: 12, uid: 0, gid: 0)] {
            #expect(throws: RemoteError.self, "uid \(stranger.uid)") { try TerminalAttach.admit(stranger, ownerUID: 1000) }
        }
        #expect(throws: RemoteError.self, "a peer the kernel does not name") { try TerminalAttach.admit(nil, ownerUID: 1000) }
        do {
            try TerminalAttach.admit(PeerCredentials(pid: 11, uid: 1001, gid: 1000), ownerUID: 1000)
        } catch {
            #expect(error.code == .notAuthorized)
        }
    }

    @Test func aRegistrationNeedsItsSessionIDCwdAndPid() throws {
        let good: JSONValue = [
            "piSessionID": "0c5f7f0e-3d0e-4b7e-9a59-5d2d1c3e4f50", "cwd": "/home/me/app", "pid": 4242, "piVersion": "0.58.3",
            "model": "anthropic/claude-sonnet-4-5",
        ]
        let registration = try TerminalRegistration(params: good)
        #expect(registration.sessionID == "t-0c5f7f0e3d0e", "derived from pi's id: the same every time")
        #expect(registration.pid == 4242)
        #expect(registration.model == "anthropic/claude-sonnet-4-5")
        for missing in ["piSessionID", "cwd", "pid"] {
            var params = good
            params[missing] = nil
            #expect(throws: RemoteError.self, "without \(missing)") { try TerminalRegistration(params: params) }
        }
        var relative = good
        relative["cwd"] = "app"
        #expect(throws: RemoteError.self) { try TerminalRegistration(params: relative) }
    }

    @Test func aPiOlderThanTheMinimumIsRefusedWithTheVersionItNeeds() throws {
        var params: JSONValue = ["piSessionID": "0c5f7f0e3d0e4b7e", "cwd": "/w", "pid": 1, "piVersion": "0.57.9"]
        do {
            _ = try TerminalRegistration(params: params)
            Issue.record("pi 0.57.9 was accepted")
        } catch {
            #expect(error.message.contains("0.58.1"), "\(error.message)")
        }
        for accepted in ["0.58.1", "0.58.10", "1.0.0", "0.59.0-beta.1"] {
            params["piVersion"] = .string(accepted)
            #expect(throws: Never.self, "\(accepted)") { try TerminalRegistration(params: params) }
        }
        #expect(TerminalRegistration.isOlder("0.58.9", than: "0.58.10") == true, "numbers, not text")
        #expect(TerminalRegistration.isOlder("dev", than: "0.58.1") == nil, "not a version: not judged")
    }
}
