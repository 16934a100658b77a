import Logging
import Synchronization

/// A logger whose lines a test can read back.
final class SessionLogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "session-test") { _ in Handler(capture: self) }
    }

    var text: [String] { lines.withLock { $0 } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
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
}
