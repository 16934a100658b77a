import Logging
import Synchronization

/// A logger whose lines a test can read back.
final class SessionLogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "session-test") { _ in SessionLogHandler(capture: self) }
    }

    var text: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }
}
