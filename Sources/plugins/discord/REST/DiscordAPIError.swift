/// A REST call that Discord refused or that never got an answer. Its text names the route
/// template, never the concrete path (interaction tokens live in paths) or a header.
struct DiscordAPIError: Error, Sendable, CustomStringConvertible {
    var endpoint: String
    /// The HTTP status; 0 when there was no response.
    var status: Int
    /// Discord's JSON error code (50013, 10008...), when the body had one.
    var code: Int?
    var message: String

    var description: String {
        if status == 0 { return "\(endpoint): \(message)" }
        return "\(endpoint) failed: HTTP \(status)" + (code.map { " code \($0)" } ?? "") + (message.isEmpty ? "" : ": \(message)")
    }

    /// Retrying will not help: the request itself is wrong or not allowed.
    /// Discord's code for a message that does not exist (deleted, or never was).
    static let unknownMessage = 10008

    var isPermanent: Bool { (400..<500).contains(status) && status != 429 }
}
