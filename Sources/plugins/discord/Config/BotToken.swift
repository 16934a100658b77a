import FoundationEssentials

/// The bot token. Printing it (string interpolation, `dump`, a log line) shows a mask, so it can
/// only reach the wire through `value`, used in exactly two places: the REST Authorization header
/// and the gateway identify/resume payloads.
struct BotToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String

    var description: String { "Bot ***" }
    var debugDescription: String { "Bot ***" }

    /// `text` with every occurrence of the token replaced, for strings that came from elsewhere
    /// (close reasons, error bodies) before they are logged.
    func masking(_ text: String) -> String {
        guard value.count >= 8 else { return text }
        return text.replacing(value, with: "***")
    }
}
