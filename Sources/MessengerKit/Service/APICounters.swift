import PiRelaySDK

/// What a messenger's API client counted since start, for its `status`: calls made, 429s met,
/// and calls that failed (network, 5xx, refused).
public struct APICounters: Sendable, Equatable {
    public var requests = 0
    public var rateLimited = 0
    public var failures = 0

    public init() {}

    /// `{requests, rateLimited, failures}`.
    public var json: JSONValue {
        ["requests": JSONValue(requests), "rateLimited": JSONValue(rateLimited), "failures": JSONValue(failures)]
    }
}
