/// How one gateway connection ended.
struct GatewayEnding: Sendable {
    /// The close code Discord sent (or echoed); nil when the connection dropped without one.
    var code: Int?
    var reason: String?
    /// A connection or protocol failure, as text without secrets.
    var failure: String?

    var summary: String {
        if let code { return "close \(code)" + (reason.map { $0.isEmpty ? "" : " \"\($0)\"" } ?? "") }
        return failure.map { "connection lost: \($0)" } ?? "connection lost"
    }
}
