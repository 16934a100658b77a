/// What the gateway actor hands to a connection's writer task.
enum GatewayOutgoing: Sendable {
    case text(String)
    /// Send a close frame with this code (never 1000/1001 unless the session should end) and stop.
    case close(code: UInt16, reason: String)
}
