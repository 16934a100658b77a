/// An error carried in a response. `code` is machine-readable; `message` is for people.
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it is.
    public var code: ErrorCode
    /// What happened, in a sentence for the user.
    public var message: String

    /// An error with its code and message.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// The wire form, `{code, message}`.
    public var json: JSONValue { ["code": .string(code.rawValue), "message": .string(message)] }

    /// The answer to a request for a method the receiver does not know.
    public static func methodNotFound(_ method: String) -> RemoteError { .init(code: .methodNotFound, message: "unknown method \(method)") }
    /// The answer to a request whose params are missing something or of the wrong type.
    public static func invalidParams(_ why: String) -> RemoteError { .init(code: .invalidParams, message: why) }
    /// A request that got no response in time.
    public static func timeout(_ what: String) -> RemoteError { .init(code: .timeout, message: what) }
}
