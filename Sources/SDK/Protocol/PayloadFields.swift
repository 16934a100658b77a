/// Reads the fields of one payload object, naming the payload in each error.
package struct PayloadFields {
    package let json: JSONValue
    let context: String

    /// Fails with `invalid_params` unless `json` is an object.
    package init(_ json: JSONValue, _ context: String) throws(RemoteError) {
        guard case .object = json else { throw .invalidParams("\(context) must be an object") }
        self.json = json
        self.context = context
    }

    package func string(_ key: String) throws(RemoteError) -> String {
        guard let value = json[key]?.stringValue else { throw .invalidParams("\(context).\(key) must be a string") }
        return value
    }

    package func int(_ key: String) throws(RemoteError) -> Int {
        guard let value = json[key]?.intValue else { throw .invalidParams("\(context).\(key) must be an integer") }
        return value
    }

    package func object(_ key: String) throws(RemoteError) -> JSONValue {
        guard let value = json[key], case .object = value else { throw .invalidParams("\(context).\(key) must be an object") }
        return value
    }

    package func optionalString(_ key: String) -> String? { json[key]?.stringValue }
    package func optionalInt(_ key: String) -> Int? { json[key]?.intValue }
    package func optionalBool(_ key: String) -> Bool? { json[key]?.boolValue }
    package func bool(_ key: String, default fallback: Bool) -> Bool { json[key]?.boolValue ?? fallback }
    package func strings(_ key: String) -> [String] { (json[key]?.arrayValue ?? []).compactMap(\.stringValue) }
    package func array(_ key: String) -> [JSONValue] { json[key]?.arrayValue ?? [] }

    /// Each element of the array `key` decoded as `T`; elements that do not decode are skipped.
    package func list<T: WirePayload>(_ key: String, of type: T.Type) -> [T] {
        array(key).compactMap { element in try? T(json: element) }
    }

    /// The member `key` decoded as `T`, or nil when absent or null.
    package func optional<T: WirePayload>(_ key: String, as type: T.Type) throws(RemoteError) -> T? {
        guard let value = json[key], !value.isNull else { return nil }
        return try T(json: value)
    }
}

extension Array where Element: WirePayload {
    /// The elements as a JSON array.
    package var json: JSONValue { .array(map(\.json)) }
}

extension Array where Element == String {
    /// The strings as a JSON array.
    package var json: JSONValue { .array(map { .string($0) }) }
}
