/// `chat.pair` (messenger → supervisor): a user claims a pairing code made by `pi-relayd pair`,
/// by sending `/pair CODE` (or Telegram's `/start CODE`). The answer is a `Reply`. Unlike every
/// other chat request it is sent for users not on the allowlist: that is its purpose.
public struct ChatPairParams: Sendable, Equatable {
    /// Who claims, and where.
    public var chat: Chat
    /// The code as the user typed it.
    public var code: String

    /// A claim.
    public init(chat: Chat, code: String) {
        self.chat = chat
        self.code = code
    }
}

extension ChatPairParams: WirePayload {
    /// Reads a claim; both fields are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.pair")
        self.init(chat: try Chat(json: json["chat"] ?? .null), code: try fields.string("code"))
    }

    /// `{chat, code}`.
    public var json: JSONValue { ["chat": chat.json, "code": .string(code)] }
}

extension ChatPairParams {
    /// The code in a claim: `/pair CODE`, or `/start CODE` when `start` is given (Telegram's deep
    /// links send that). Nil when `text` is no claim; `/pair` alone is a claim of an empty code.
    public static func code(in text: String, start: Bool = false) -> String? {
        let trimmed = Substring(text).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        let lowered = String(trimmed).lowercased()
        for command in start ? ["/pair", "/start"] : ["/pair"] {
            guard lowered.hasPrefix(command) else { continue }
            let rest = String(trimmed).dropFirst(command.count)
            guard rest.isEmpty || rest.first?.isWhitespace == true else { continue }
            let code = String(rest.drop(while: \.isWhitespace))
            // A bare `/start` is Telegram's hello, not a claim.
            if command == "/start" && code.isEmpty { return nil }
            return code
        }
        return nil
    }
}
