/// A statement and its parameters, written as Swift string interpolation: each interpolated
/// value becomes a `$n` placeholder sent apart from the text, never spliced into it, so no
/// value can change what the statement does.
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// A parameter as PostgreSQL reads it: its type's OID and its text form (nil for NULL).
    struct Value: Sendable, Equatable {
        let type: UInt32
        let text: String?
    }

    var text: String
    var values: [Value]

    public init(stringLiteral value: String) {
        text = value
        values = []
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        values = stringInterpolation.values
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var values: [Value] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }

        // The types' OIDs are fixed in PostgreSQL's catalog (pg_type.dat).
        public mutating func appendInterpolation(_ value: String?) { bind(25, value) }
        public mutating func appendInterpolation(_ value: Int) { bind(20, String(value)) }
        public mutating func appendInterpolation(_ value: Int64?) { bind(20, value.map { String($0) }) }
        public mutating func appendInterpolation(_ value: Double) { bind(701, "\(value)") }
        public mutating func appendInterpolation(_ value: Bool) { bind(16, value ? "true" : "false") }

        private mutating func bind(_ type: UInt32, _ text: String?) {
            values.append(Value(type: type, text: text))
            self.text += "$\(values.count)"
        }
    }
}
