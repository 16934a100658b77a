import Foundation
import PiRelaySDK

/// A question from the agent (`chat.post` kind `question`).
struct Question: Sendable, Equatable {
    var id: String
    var sessionID: String
    var method: String
    var title: String
    var message: String?
    var options: [String]
    var placeholder: String?
    /// When it expires, if it does.
    var expiresAt: Date?

    init?(_ json: JSONValue?, sessionFallback: String?) {
        guard let json, let id = json["id"]?.stringValue,
            let session = json["sessionId"]?.stringValue ?? sessionFallback
        else { return nil }
        self.id = id
        sessionID = session
        method = json["method"]?.stringValue ?? "input"
        title = json["title"]?.stringValue ?? "Question"
        message = json["message"]?.stringValue
        options = (json["options"]?.arrayValue ?? []).compactMap(\.stringValue)
        placeholder = json["placeholder"]?.stringValue
        expiresAt = Self.date(json["expiresAt"])
    }

    /// Accepts epoch milliseconds, epoch seconds or an ISO 8601 string.
    static func date(_ value: JSONValue?) -> Date? {
        switch value {
        case .number(let n)?: return Date(timeIntervalSince1970: n > 1e11 ? n / 1000 : n)
        case .string(let s)?:
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let d = f.date(from: s) { return d }
            f.formatOptions = [.withInternetDateTime]
            return f.date(from: s)
        default: return nil
        }
    }
}
