import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Plugin logs go to stderr, one line each; the supervisor timestamps and files them.
public struct StderrLogHandler: LogHandler {
    /// Metadata added to every entry.
    public var metadata: Logger.Metadata = [:]
    /// The lowest level written; `PI_RELAY_LOG_LEVEL` sets it at start.
    public var logLevel: Logger.Level = .info
    private let label: String

    /// A handler for the logger named `label`.
    public init(label: String) {
        self.label = label
        if let env = ProcessInfo.processInfo.environment["PI_RELAY_LOG_LEVEL"], let level = Logger.Level(rawValue: env) {
            logLevel = level
        }
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line to stderr with write(2), ignoring errors: logging must never stop the plugin.
    public func log(event: LogEvent) {
        StandardStreams.writeError(Array((event.line(with: metadata) + "\n").utf8))
    }
}
