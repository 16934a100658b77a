import PiRelaySDK

/// The daemon's end of an attached terminal session: the control connection the extension
/// attached on. Commands go out as pi RPC lines; `finish` ends the connection.
final class TerminalLink: PiInput {
    let stream: ControlStream

    init(stream: ControlStream) {
        self.stream = stream
    }

    func send(_ line: [UInt8]) {
        stream.sendRaw(line)
    }

    func finish() {
        stream.close()
    }

    /// The footer line of the extension: which messengers watch the session now.
    func tellWatchers(_ messengers: [String]) {
        stream.sendLine(["type": "relay_status", "watchers": .array(messengers.map { .string($0) })])
    }
}
