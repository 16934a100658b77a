import FoundationEssentials
import PiRelaySDK

/// A dialog an extension opened (select, confirm, input, editor) that waits for an answer.
/// Codable because the open ones are saved with the session (see `SessionRecord.openQuestions`).
package struct PendingQuestion: Codable, Sendable, Equatable {
    package var id: String
    package var sessionID: String
    package var method: String
    package var title: String
    package var message: String?
    package var options: [String]
    package var placeholder: String?
    package var prefill: String?
    package var askedAt: Date
    /// When pi gives up on its side (its `timeout`), or our own policy does.
    package var expiresAt: Date?
    /// Asked by another extension in a terminal pi: shown in the chats, answered only there.
    package var terminalOnly: Bool?
    /// An approval asked in one chat only (the running prompt's): a plain message in another
    /// chat, which never saw the question, is a prompt there, not an answer. Not saved: a gate
    /// does not outlive the daemon.
    package var onlyChat: String? = nil

    /// The keys in sessions.json, as they have always been spelled.
    private enum CodingKeys: String, CodingKey {
        case id, sessionID = "sessionId", method, title, message, options, placeholder, prefill, askedAt, expiresAt, terminalOnly
    }

    package var json: JSONValue {
        var object: JSONValue = [
            "id": .string(id), "sessionId": .string(sessionID), "method": .string(method),
            "title": .string(title), "options": .array(options.map { .string($0) }),
            "askedAt": .string(ISO8601.string(askedAt)),
        ]
        if let message { object["message"] = .string(message) }
        if let placeholder { object["placeholder"] = .string(placeholder) }
        if let prefill { object["prefill"] = .string(prefill) }
        if terminalOnly == true { object["terminalOnly"] = true }
        if let expiresAt {
            object["expiresAt"] = .string(ISO8601.string(expiresAt))
            object["secondsLeft"] = JSONValue(max(0, Int(expiresAt.timeIntervalSinceNow.rounded())))
        }
        return object
    }

    /// The question as a messenger gets it in `chat.post`.
    package var post: QuestionPost {
        if terminalOnly == true {
            // Method "terminal": shown without answers (QuestionPost); the choices as text.
            let choices =
                options.isEmpty ? nil : "Options: " + options.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: " · ")
            let lines = [message, choices, "Answer it in the terminal."].compactMap { $0 }
            return QuestionPost(id: id, sessionID: sessionID, method: "terminal", title: title, message: lines.joined(separator: "\n"))
        }
        return QuestionPost(
            id: id, sessionID: sessionID, method: method, title: title, message: message, options: options, placeholder: placeholder,
            expiresAt: expiresAt.map { .string(ISO8601.string($0)) })
    }

    package enum AnswerError: Error, CustomStringConvertible {
        case invalid(String)
        package var description: String {
            switch self {
            case .invalid(let reason): return reason
            }
        }
    }

    /// A typed answer in the shape pi expects for this method: `value` for select/input/editor,
    /// `confirmed` for confirm. A select accepts the option's text (what a button sends) or its
    /// number (1-based); the text wins, so an option that is itself a number ("2" among "2" and
    /// "1") is never taken for another's position.
    package func answer(for answer: String) throws -> PiUIAnswer {
        switch method {
        case "confirm":
            switch answer.trimmingInlineSpace().lowercased() {
            case "y", "yes", "true", "1", "ok", "allow", "confirm": return .confirmed(true)
            case "n", "no", "false", "0", "deny", "reject": return .confirmed(false)
            default: throw AnswerError.invalid("answer yes or no")
            }
        case "select":
            let typed = answer.trimmingInlineSpace()
            if let exact = options.first(where: { $0 == typed }) ?? options.first(where: { $0.lowercased() == typed.lowercased() }) {
                return .value(exact)
            }
            if let number = Int(typed), number >= 1, number <= options.count { return .value(options[number - 1]) }
            throw AnswerError.invalid("choose one of: " + options.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: ", "))
        default:
            return .value(answer)
        }
    }
}
