/// Why a line could not be read as a pi event. The caller logs it and skips the line (pi's own
/// client ignores unparsable stdout lines too; rare startup paths print plain text).
package struct PiEventReadError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidJSON
        /// Valid JSON, but not an object.
        case notAnObject
        /// An object without a string `type`.
        case missingType
    }

    package let kind: Kind
    /// Byte offset into the line.
    package let offset: Int
    package let reason: String

    package var description: String { "unreadable pi line at byte \(offset): \(reason)" }
}

extension PiEventReadError {
    init(_ parseError: JSONParseError) {
        self.init(kind: .invalidJSON, offset: parseError.offset, reason: parseError.reason)
    }
}
