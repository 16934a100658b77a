import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

extension ControlClient {
    /// A request answered by events, some of which the caller answers on the same connection
    /// (`pair` asks the terminal to confirm). `onEvent` returns what to send back, or nil.
    /// Returns the final result, throwing the daemon's error.
    package func converse(_ method: ControlMethod, _ params: JSONValue, onEvent: (JSONValue) throws -> JSONValue?) throws -> JSONValue {
        let fd = try Self.open(path)
        defer { close(fd) }
        try write(fd, ControlRequest(method: method, params: params).json)
        var reader = BlockingLineReader(fd: fd)
        while let line = reader.next() {
            let message = try JSONValue.parse(bytes: line)
            guard let event = message["event"] else { return try Self.result(of: line) }
            if let answer = try onEvent(event) { try write(fd, answer) }
        }
        throw RemoteError(code: .internal, message: "pi-relayd closed the connection without answering")
    }
}
