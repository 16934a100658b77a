/// Why a line could not be read as a pi event. The caller logs it and skips the line (pi's own
/// client ignores unparsable stdout lines too; rare startup paths print plain text).
public struct PiEventReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case invalidJSON
        /// Valid JSON, but not an object.
        case notAnObject
        /// An object without a string `type`.
        case missingType
    }

    public let kind: Kind
    /// Byte offset into the line.
    public let offset: Int
    public let reason: String

    public init(kind: Kind, offset: Int, reason: String) {
        self.kind = kind
        self.offset = offset
        self.reason = reason
    }

    init(_ parseError: JSONParseError) {
        self.init(kind: .invalidJSON, offset: parseError.offset, reason: parseError.reason)
    }

    public var description: String { "unreadable pi line at byte \(offset): \(reason)" }
}
