import PiRelaySDK

/// What each messenger said of itself in its hello that shapes what it is sent: its longest
/// message, its largest upload, its markup, and how often it takes a live view.
package struct MessengerTraits {
    /// How often a run's live view is sent to a messenger that names no pace of its own
    /// (`limits.liveIntervalMs` in its hello). Discord edits a message at most every 800 ms and
    /// Telegram and Slack about once a second, so views sent faster were rendered, sent and then
    /// dropped by the messenger: at 400 ms about half the daemon's CPU while sessions streamed
    /// went into views no one saw.
    package static let defaultLiveInterval: Duration = .milliseconds(800)
    /// The bounds of a pace a messenger may ask for.
    package static let liveIntervalRange: ClosedRange<Int> = 100...10_000
    package static let defaultMessageLength = 2000
    /// The shortest message length a messenger may name: a label and a line must fit (the
    /// formatter's splitter takes no less).
    package static let minimumMessageLength = 100
    package static let defaultUploadBytes = 10 << 20

    private var messageLengths: [String: Int] = [:]
    private var uploadBytes: [String: Int] = [:]
    private var dialects: [String: Dialect] = [:]
    private var liveIntervals: [String: Duration] = [:]

    /// Takes `plugin`'s traits from its hello (again at each restart); `liveIntervalMs` is the
    /// least pace its config section asks for, which the plugin's own may raise.
    package mutating func take(_ hello: Hello, of plugin: String, liveIntervalMs: Int? = nil) {
        // A length under the minimum or a size of zero or less (another machine's forwarded
        // request carries its messenger's) means nothing that could be sent: the default instead.
        messageLengths[plugin] = hello.limits["maxMessageLength"].flatMap { $0 >= Self.minimumMessageLength ? $0 : nil }
        uploadBytes[plugin] = hello.limits["maxUploadBytes"].flatMap { $0 > 0 ? $0 : nil }
        dialects[plugin] = hello.dialect ?? .markdown
        let paces = [hello.limits["liveIntervalMs"], liveIntervalMs].compactMap { $0 }
        liveIntervals[plugin] = paces.max().map { milliseconds in
            .milliseconds(min(max(milliseconds, Self.liveIntervalRange.lowerBound), Self.liveIntervalRange.upperBound))
        }
    }

    package func messageLength(_ messenger: String) -> Int { messageLengths[messenger] ?? Self.defaultMessageLength }
    package func uploadBytes(_ messenger: String) -> Int { uploadBytes[messenger] ?? Self.defaultUploadBytes }
    package func dialect(_ messenger: String) -> Dialect { dialects[messenger] ?? .markdown }
    package func liveInterval(_ messenger: String) -> Duration { liveIntervals[messenger] ?? Self.defaultLiveInterval }
}
