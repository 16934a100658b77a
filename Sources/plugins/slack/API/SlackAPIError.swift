import MessengerKit

/// A Web API call that failed: Slack's `ok: false` with its error name, a 429, or no answer at
/// all (`status` 0). Slack names every error, so callers decide by `error`, never by text.
struct SlackAPIError: Error, Sendable, CustomStringConvertible {
    let method: String
    /// HTTP status; 0 when Slack was not reached.
    let status: Int
    /// Slack's error code (`channel_not_found`), or what went wrong on the way, token masked.
    let error: String
    /// `needed` scope of a `missing_scope`.
    var needed: String?
    /// `response_metadata.messages`, for `invalid_blocks` and friends.
    var messages: [String] = []

    var description: String {
        var text = "\(method): \(error)"
        if let needed { text += " (needs the \(needed) scope: add it in OAuth & Permissions and reinstall the app)" }
        if !messages.isEmpty { text += " " + messages.prefix(3).joined(separator: "; ") }
        return text
    }

    /// The token is wrong, revoked or of the wrong kind: waiting or retrying will not help.
    var isTokenProblem: Bool {
        [
            "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type",
            "user_removed_from_team", "team_disabled",
        ].contains(error)
    }

    /// Slack's side failed or was not reached, or throttled a post without a 429 (`rate_limited`,
    /// in `chat.postMessage`'s and `chat.update`'s error lists with no `Retry-After`): worth
    /// another try after a pause.
    var isTransient: Bool {
        status == 0 || status >= 500
            || ["internal_error", "fatal_error", "service_unavailable", "request_timeout", "rate_limited"].contains(error)
    }

    /// A request that fails the same way however often it is repeated. Not a refused token: what
    /// it refuses is kept for the token that replaces it (`TokenRefusal`), not dropped.
    var isPermanent: Bool { !isTransient && error != "ratelimited" && !isTokenProblem }
}

extension SlackAPIError: SignInError {
    var refusesToken: Bool { isTokenProblem }
    var unreached: String? { status == 0 ? error : nil }
}
