import Synchronization

/// A messenger's API client counting as it goes (`APICounters`), from any task: a call made, a
/// 429 met, a call that failed.
public final class APITally: Sendable {
    private let counted = Mutex(APICounters())

    public init() {}

    /// The counts so far, for the plugin's `status`.
    public var counts: APICounters { counted.withLock { $0 } }

    public func request() { counted.withLock { $0.requests += 1 } }

    public func rateLimited() { counted.withLock { $0.rateLimited += 1 } }

    public func failure() { counted.withLock { $0.failures += 1 } }
}
