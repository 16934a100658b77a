import PiRelaySDK

/// Which plain chat messages answer an open question.
extension PendingQuestion {
    /// Whether a plain message in a chat with this question open answers it, rather than being a
    /// prompt: any text for input and editor, yes or no for confirm, an option's number or text
    /// for select. Anything else goes to the agent like any other message (a select used to take
    /// it as an invalid answer, reply "choose one of: …" and drop it).
    /// `chat` is the chat's key: an approval asked in another chat only is not this chat's to
    /// answer by a plain message (a "2" sent as a prompt approved a command it never showed).
    package func takesPlainReply(_ text: String, in chat: String? = nil) -> Bool {
        if terminalOnly == true { return false }  // the chat cannot answer it: text is a prompt
        if let onlyChat, onlyChat != chat { return false }
        switch method {
        case "confirm": return ["yes", "no", "y", "n"].contains(text.trimmingInlineSpace().lowercased())
        case "select": return (try? answer(for: text)) != nil
        default: return true
        }
    }
}
