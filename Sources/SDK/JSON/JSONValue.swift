/// A JSON document as a value. Used for protocol messages and plugin config; the pi event hot path
/// does not build these (see `PiEventReader`).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member `key` of an object; nil for a missing key or a value that is not an object. Setting it on a non-object does nothing.
    public subscript(key: String) -> JSONValue? {
        get { if case .object(let members) = self { return members[key] } else { return nil } }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The element at `index` of an array; nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, or nil when this is not a string.
    public var stringValue: String? { if case .string(let string) = self { return string } else { return nil } }
    /// The boolean, or nil when this is not a boolean.
    public var boolValue: Bool? { if case .bool(let flag) = self { return flag } else { return nil } }
    /// The number, or nil when this is not a number.
    public var doubleValue: Double? { if case .number(let number) = self { return number } else { return nil } }
    /// The number as an integer, or nil when it is not a whole number that fits exactly.
    public var intValue: Int? {
        if case .number(let number) = self, number.rounded() == number, abs(number) < 9.0e15 { return Int(number) }
        return nil
    }
    /// The elements, or nil when this is not an array.
    public var arrayValue: [JSONValue]? { if case .array(let elements) = self { return elements } else { return nil } }
    /// The members, or nil when this is not an object.
    public var objectValue: [String: JSONValue]? { if case .object(let members) = self { return members } else { return nil } }
    /// True for JSON `null` only (a missing member is `nil`, not `.null`).
    public var isNull: Bool { if case .null = self { return true } else { return false } }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    /// `"text"` as a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` as a JSON number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `1.5` as a JSON number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `true` as a JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[a, b]` as a JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `["key": value]` as a JSON object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil` as JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// An integer as a JSON number.
    public init(_ int: Int) { self = .number(Double(int)) }
    /// A string, or `null` for nil.
    public init(_ string: String?) { self = string.map { .string($0) } ?? .null }
}
