import MessengerKit

/// A Bot API answer with `ok: false`. The description's prefix and text are the only reliable way
/// to tell one 400 from another (the spec, section 1).
struct BotAPIError: Error, Sendable, CustomStringConvertible {
    let method: String
    let status: Int
    /// Telegram's description, token masked.
    let text: String
    var retryAfter: Int?
    var migrateTo: String?

    var description: String { "\(method): \(status) \(text)" }

    /// `message is not modified`: an edit that changes nothing, which is what we wanted.
    var isNotModified: Bool { status == 400 && text.contains("message is not modified") }
    /// The message to edit was deleted, or may no longer be edited: its words go in a new one.
    var isUneditable: Bool { status == 400 && (text.contains("message to edit not found") || text.contains("message can't be edited")) }
    var isUnparsableHTML: Bool { status == 400 && text.contains("can't parse entities") }
    /// 403: blocked by the user, kicked, or never started: posting there again is pointless.
    var isForbidden: Bool { status == 403 }
    var isUnauthorized: Bool { status == 401 }
    /// A request that will fail the same way however often it is repeated.
    var isPermanent: Bool { status == 400 || status == 403 || status == 404 }
}

extension BotAPIError: SignInError {
    var refusesToken: Bool { isUnauthorized }
    var unreached: String? { status == 0 ? text : nil }
}
