import FoundationEssentials
import Logging
import PiRelaySDK

/// swift-log handler for the daemon's own log, `logs/pi-relayd.log`; echoes to stderr when the
/// daemon runs in the foreground.
package struct DaemonLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    package let file: RotatingLog?
    package let echo: Bool

    package init(file: RotatingLog?, level: Logger.Level, echo: Bool) {
        self.file = file
        self.logLevel = level
        self.echo = echo
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let text = Redactor.redact(event.line(with: metadata))
        file?.append(text)
        if echo {
            // The throwing write: the plain one traps when stderr's file cannot take more (a full
            // disk under `pi-relayd start`'s stderr file), and that would end the daemon.
            StandardStreams.writeError(RotatingLog.timestamp() + " " + text + "\n")
        }
    }
}
