import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// The control socket's `attach` method: an interactive pi's extension registers its session,
/// then the connection carries pi's RPC both ways until it ends (docs/EXTENSION.md).
package struct TerminalAttach: Sendable {
    package let sessions: Sessions
    package let bindings: ChatBindings
    /// The gates the attached extension applies (sent in the attach result).
    package var approvals = ApprovalSettings()
    package let logger: Logger
    /// The daemon's own uid; only its owner may attach sessions.
    package var ownerUID: UInt32 = getuid()

    /// The socket is owner-only already; the kernel's word on the peer's uid is the second
    /// lock. A peer the kernel cannot name is refused too.
    package static func admit(_ peer: PeerCredentials?, ownerUID: UInt32) throws(RemoteError) {
        guard let peer, peer.isOwner(uid: ownerUID) else {
            throw RemoteError(code: .notAuthorized, message: "attach refused: only the user pi-relayd runs as may attach sessions")
        }
    }

    /// Answers the attach, then serves the link until the extension hangs up. Returns nil: the
    /// answer went out on the stream.
    package func serve(params: JSONValue, requestID: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        do { try Self.admit(stream.peer, ownerUID: ownerUID) } catch {
            let who = stream.peer.map { "uid \($0.uid) (pid \($0.pid))" } ?? "a peer of unknown uid"
            logger.warning("refused an attach from \(who): only the daemon's own user may attach sessions")
            throw error
        }
        let registration = try TerminalRegistration(params: params)
        let link = TerminalLink(stream: stream)
        let session = await sessions.terminalSession(for: registration)
        if let previous = registration.previousPiSessionID {
            let oldID = TerminalRegistration.sessionID(piSessionID: previous)
            if oldID != session.id {
                await sessions.session(id: oldID)?.terminalLinkEnded(within: .seconds(2))
                await bindings.move(from: oldID, to: session.id)
                await sessions.session(id: oldID)?.terminalLeft()
            }
        }
        let generation = await session.attachTerminal(registration, link: link)
        await session.terminalAttached(pid: registration.pid, switched: registration.previousPiSessionID != nil)
        var result: JSONValue = [
            "sessionID": .string(session.id), "session": .string(await session.name), "protocol": 1,
            "version": .string(Version.current),
        ]
        if let gates = approvals.extensionJSON(forSession: await session.name) { result["approvals"] = gates }
        stream.sendLine(["id": requestID, "result": result])
        link.tellWatchers(Array(Set(await bindings.chats(of: session.id).map(\.messenger))).sorted())
        for await line in stream.incoming {
            await session.terminalLine(line, generation: generation)
        }
        await session.terminalDetached(generation: generation)
        return nil
    }
}
