/// The retry rules of one call to a chat service's Web API, which the Telegram and Slack clients
/// share: a transport failure is tried again after 0.5 s, 1 s, 1.5 s; a server error (5xx, or an
/// answer that is not the API's) after 1 s, 2 s, 3 s; four tries in all. A 429 is tried again
/// once the client has held the chat or method for as long as the service asked, up to
/// `rateLimitedTries`. Pure: the client waits and holds.
public struct APIAttempts: Sendable {
    /// How one try failed.
    public enum Failure: Sendable, Equatable {
        /// No HTTP answer at all (connection refused, timed out).
        case transport
        /// An answer, but not the API's (an HTML error page, say), with its HTTP status.
        case notAnAnswer(status: Int)
        /// The API's own answer: an error on the service's side that may pass.
        case serverError
        /// 429: the service asked to wait. `wait` is the pause before the next try when nothing
        /// paces it; nil when the client's pacer holds the chat or method that long.
        case rateLimited(wait: Duration?)
        /// The API refused the call; trying again would fail the same way.
        case refused
    }

    /// What to do after a failed try.
    public enum Next: Sendable, Equatable {
        /// Try again after this pause.
        case retry(after: Duration)
        /// Try again; the hold the client just recorded paces it.
        case afterHold
        /// Give up: the failure is the call's.
        case giveUp
    }

    /// Tries so far, the one under way included.
    public private(set) var attempt = 0
    let rateLimitedTries: Int

    /// Tries beyond four are for 429s only.
    public init(rateLimitedTries: Int) {
        self.rateLimitedTries = rateLimitedTries
    }

    /// A try starts.
    public mutating func start() {
        attempt += 1
    }

    /// What follows a failed try.
    public func next(after failure: Failure) -> Next {
        switch failure {
        case .transport: attempt < 4 ? .retry(after: .milliseconds(500 * attempt)) : .giveUp
        case .notAnAnswer(let status): status >= 500 && attempt < 4 ? .retry(after: .milliseconds(1000 * attempt)) : .giveUp
        case .serverError: attempt < 4 ? .retry(after: .milliseconds(1000 * attempt)) : .giveUp
        case .rateLimited(let wait): attempt < rateLimitedTries ? wait.map { .retry(after: $0) } ?? .afterHold : .giveUp
        case .refused: .giveUp
        }
    }
}
