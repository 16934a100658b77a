import PiRelaySDK

extension YAMLNode {
    /// Integers beyond this cannot be held exactly by a Double (JSONValue's number).
    package static let largestExactInteger = 9_007_199_254_740_992.0

    /// The node as JSON, for a plugin's config section. An integer too large for a Double to hold
    /// exactly (a Discord id, say) is passed as its text rather than silently rounded.
    package var jsonValue: JSONValue {
        switch content {
        case .sequence(let items):
            return .array(items.map(\.jsonValue))
        case .mapping(let pairs):
            var object: [String: JSONValue] = [:]
            for pair in pairs {
                if case .scalar(let key, _) = pair.key.content { object[key] = pair.value.jsonValue }
            }
            return .object(object)
        case .scalar:
            switch scalarValue {
            case .null, .none: return .null
            case .bool(let flag): return .bool(flag)
            case .float(let float): return float.isFinite ? .number(float) : .string(String(float))
            case .string(let text): return .string(text)
            case .integer(let digits):
                guard let value = Double(digits), abs(value) < Self.largestExactInteger else { return .string(digits) }
                return .number(value)
            }
        }
    }
}
