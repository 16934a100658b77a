/// Why the configuration could not be loaded. `description` is what the daemon prints: it starts
/// with `file:line:column:` when the problem has a place in a file. It never contains a secret
/// value, only names.
package struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Not valid YAML, or a .env line that is not `KEY=VALUE`.
        case syntax
        /// Valid YAML, but a value has the wrong type or is out of range.
        case invalidValue
        /// The file is readable by others while holding secrets, or belongs to someone else.
        case unsafeFile
        /// The file exists but could not be read.
        case unreadable
    }

    package let kind: Kind
    package let file: String
    /// 1-based; nil when the problem is the file as a whole.
    package let line: Int?
    package let column: Int?
    package let message: String

    package init(_ kind: Kind, file: String, at mark: YAMLNode.Mark? = nil, _ message: String) {
        self.kind = kind
        self.file = file
        self.line = mark?.line
        self.column = mark?.column
        self.message = message
    }

    package var description: String {
        guard let line else { return message }
        return "\(file):\(line):\(column ?? 1): \(message)"
    }
}
