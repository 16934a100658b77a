/// The bot token, `<bot id>:<secret>` from BotFather. It sits in the path of every Bot API URL,
/// so it reaches the wire only through `SecretURL`; printing it shows a mask.
struct TelegramToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String

    var description: String { "***" }
    var debugDescription: String { "***" }

    /// Whether the text has the shape of a token: digits, a colon, then the secret.
    static func isWellFormed(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let id = text[..<colon]
        let secret = text[text.index(after: colon)...]
        return !id.isEmpty && id.allSatisfy { $0.isASCII && $0.isNumber } && secret.count >= 8
            && secret.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    /// `text` with the token masked, for text that came from elsewhere (error bodies).
    func masking(_ text: String) -> String {
        guard value.count >= 8 else { return text }
        return text.replacing(value, with: "***")
    }
}
