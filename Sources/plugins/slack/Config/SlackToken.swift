/// A Slack token: `xoxb-…` (the bot's, for every Web API call) or `xapp-…` (the app-level one,
/// for `apps.connections.open` only). It travels in the Authorization header only; printing it
/// shows a mask.
struct SlackToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String

    var description: String { "***" }
    var debugDescription: String { "***" }

    /// Whether `text` has the shape of a token with `prefix` (`xoxb-` or `xapp-`).
    static func isWellFormed(_ text: String, prefix: String) -> Bool {
        text.hasPrefix(prefix) && text.count >= prefix.count + 8
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// `text` with the token masked, for text that came from elsewhere (error bodies, URLs).
    func masking(_ text: String) -> String {
        guard value.count >= 8 else { return text }
        return text.replacing(value, with: "***")
    }
}
