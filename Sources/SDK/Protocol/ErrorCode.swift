/// The machine-readable `code` of an error response (docs/PROTOCOL.md §4).
public enum ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The receiver does not know the method. Unknown requests are answered with this.
    case methodNotFound
    /// The params are missing something or have the wrong type.
    case invalidParams
    /// A session, question, plugin or file named in the request does not exist.
    case notFound
    /// The chat user is not allowed.
    case notAuthorized
    /// No response within the deadline.
    case timeout
    /// The plugin that should handle it is down, failed or not installed; or the daemon is starting.
    case unavailable
    /// The request killed its plugin twice; it is not retried again.
    case poison
    /// Anything else; the message says what.
    case `internal`
    /// pi itself refused the command (control socket, §9).
    case piError
    /// Another machine of the federation claimed the message first (`federation.forward`):
    /// nothing was done here.
    case claimedElsewhere
    /// A code this version does not know, kept as it came.
    case other(String)

    /// The code as it is spelled on the wire.
    public init(rawValue: String) {
        switch rawValue {
        case "method_not_found": self = .methodNotFound
        case "invalid_params": self = .invalidParams
        case "not_found": self = .notFound
        case "not_authorized": self = .notAuthorized
        case "timeout": self = .timeout
        case "unavailable": self = .unavailable
        case "poison": self = .poison
        case "internal": self = .internal
        case "pi_error": self = .piError
        case "claimed_elsewhere": self = .claimedElsewhere
        default: self = .other(rawValue)
        }
    }

    /// The wire spelling, e.g. `method_not_found`.
    public var rawValue: String {
        switch self {
        case .methodNotFound: "method_not_found"
        case .invalidParams: "invalid_params"
        case .notFound: "not_found"
        case .notAuthorized: "not_authorized"
        case .timeout: "timeout"
        case .unavailable: "unavailable"
        case .poison: "poison"
        case .internal: "internal"
        case .piError: "pi_error"
        case .claimedElsewhere: "claimed_elsewhere"
        case .other(let code): code
        }
    }

    /// The wire spelling.
    public var description: String { rawValue }
}
