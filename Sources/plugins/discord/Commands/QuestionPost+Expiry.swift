import FoundationEssentials
import PiRelaySDK

extension QuestionPost {
    /// When it expires, if it does.
    var expiryDate: Date? { Self.date(expiresAt) }

    /// Accepts epoch milliseconds, epoch seconds or an ISO 8601 string.
    static func date(_ value: JSONValue?) -> Date? {
        switch value {
        case .number(let number)?: return Date(timeIntervalSince1970: number > 1e11 ? number / 1000 : number)
        case .string(let text)?: return ISO8601.date(text)
        default: return nil
        }
    }
}
