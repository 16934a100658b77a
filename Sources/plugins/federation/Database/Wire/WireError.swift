/// Why a statement or a connection failed, as the log may show it: never a parameter's value,
/// the password, or the connection's settings.
public enum WireError: Error, Equatable, CustomStringConvertible {
    /// The server refused the statement; the connection goes on.
    case server(message: String, sqlState: String?)
    /// The server ended the connection with an error (FATAL), at sign-in or after.
    case fatal(message: String, sqlState: String?)
    /// Signing in could not go on (a password wanted and none given, a mechanism not offered,
    /// a server whose SCRAM proof is wrong).
    case authentication(String)
    /// The connection is closed, or could not be made; the cause as NIO words it.
    case connection(String)
    /// The server said something the protocol does not allow here.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .server(let message, let state), .fatal(let message, let state):
            message + (state.map { " (SQLSTATE \($0))" } ?? "")
        case .authentication(let why): "signing in: \(why)"
        case .connection(let why): why
        case .protocolViolation(let why): "protocol: \(why)"
        }
    }

    /// Whether the connection may serve another statement after this error.
    var leavesConnectionUsable: Bool {
        if case .server = self { return true }
        return false
    }
}
