/// One row of a result, its columns in PostgreSQL's text format (nil for NULL), read by
/// position as the statement selected them.
public struct DatabaseRow: Sendable, Equatable {
    let columns: [[UInt8]?]

    init(_ columns: [[UInt8]?]) { self.columns = columns }

    public func optionalString(_ index: Int) throws(WireError) -> String? {
        guard index < columns.count else { throw .protocolViolation("the row has no column \(index + 1)") }
        return columns[index].map { String(decoding: $0, as: UTF8.self) }
    }

    public func string(_ index: Int) throws(WireError) -> String {
        guard let text = try optionalString(index) else { throw .protocolViolation("column \(index + 1) is NULL") }
        return text
    }

    public func optionalInt64(_ index: Int) throws(WireError) -> Int64? {
        guard let text = try optionalString(index) else { return nil }
        guard let value = Int64(text) else { throw .protocolViolation("column \(index + 1) is not an integer") }
        return value
    }

    public func int64(_ index: Int) throws(WireError) -> Int64 {
        guard let value = try optionalInt64(index) else { throw .protocolViolation("column \(index + 1) is NULL") }
        return value
    }

    public func int(_ index: Int) throws(WireError) -> Int { Int(try int64(index)) }

    public func double(_ index: Int) throws(WireError) -> Double {
        // float8's text form: digits, or Infinity, -Infinity and NaN, which Double reads too.
        guard let value = Double(try string(index)) else { throw .protocolViolation("column \(index + 1) is not a number") }
        return value
    }

    public func bool(_ index: Int) throws(WireError) -> Bool {
        switch try string(index) {
        case "t": return true
        case "f": return false
        default: throw .protocolViolation("column \(index + 1) is not a boolean")
        }
    }
}
