import PiRelaySDK
import SupervisorIO

/// The daemon's end of an attached terminal session: the control connection the extension
/// attached on. Commands go out as pi RPC lines; `finish` ends the connection.
package final class TerminalLink: PiInput {
    package let stream: ControlStream

    package init(stream: ControlStream) {
        self.stream = stream
    }

    package func send(_ line: [UInt8]) {
        stream.sendRaw(line)
    }

    package func finish() {
        stream.close()
    }

    /// The footer line of the extension: which messengers watch the session now.
    package func tellWatchers(_ messengers: [String]) {
        stream.sendLine(["type": "relay_status", "watchers": .array(messengers.map { .string($0) })])
    }
}
