import NIOCore
import NIOPosix
import PiRelaySDK

/// pi-relayd's control socket, read only: the dashboard asks it for what no messenger request
/// gives (the sessions list, history, the approvals log, plugins, status), one request per
/// connection as the CLI does. Every action a browser takes goes through the messenger requests,
/// as the signed-in web user, never through this socket.
struct ControlReader: Sendable {
    /// The only methods the dashboard sends here: none of them changes anything.
    static let readOnly: Set<ControlMethod> = [.sessions, .history, .approvals, .plugins, .status, .questions]
    static let maxLine = 16 << 20

    let path: String
    var timeout: Duration = .seconds(10)

    func call(_ method: ControlMethod, _ params: JSONValue = [:]) async throws -> JSONValue {
        guard Self.readOnly.contains(method) else { throw RemoteError(code: .notAuthorized, message: "\(method.rawValue) is not read-only") }
        let channel = try await ClientBootstrap(group: WebLoop.group)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let line = ControlRequest(method: method, params: params).json.serialized() + "\n"
        let reply = try await withDeadline(timeout, onTimeout: { try? await channel.channel.close() }) {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(string: line))
                var received: [UInt8] = []
                for try await buffer in inbound {
                    received += buffer.readableBytesView
                    if let end = received.firstIndex(of: UInt8(ascii: "\n")) { return Array(received[..<end]) }
                    guard received.count <= Self.maxLine else { break }
                }
                throw RemoteError(code: .unavailable, message: "pi-relayd closed the control socket without an answer to \(method.rawValue)")
            }
        }
        let answer = try JSONValue.parse(bytes: reply)
        if let error = answer["error"] {
            throw RemoteError(
                code: .other(error["code"]?.stringValue ?? "error"), message: error["message"]?.stringValue ?? "\(method.rawValue) failed")
        }
        return answer["result"] ?? .null
    }
}
