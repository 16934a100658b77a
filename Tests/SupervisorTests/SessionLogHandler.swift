import Logging

/// Hands every log line, with its level, to a `SessionLogCapture`.
struct SessionLogHandler: LogHandler {
    let capture: SessionLogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.append("\(event.level) \(event.message)")
    }
}
