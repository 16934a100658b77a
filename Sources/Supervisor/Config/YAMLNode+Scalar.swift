/// How scalars are typed: the YAML 1.2 core schema (`true`, `null`, `12`, `1.5`, `0x1F`, `.inf`), so
/// that `country: NO` stays a string. Quoted scalars are always strings.
extension YAMLNode {
    package enum ScalarValue: Sendable, Equatable {
        case null
        case bool(Bool)
        /// Kept as decimal text, not as a number: Discord ids are 64-bit and must stay exact, and a
        /// Double would round them.
        case integer(String)
        case float(Double)
        case string(String)
    }

    /// The typed value of a scalar node; nil for lists and maps.
    package var scalarValue: ScalarValue? {
        guard case .scalar(let text, let plain) = content else { return nil }
        if plain { return Self.resolvePlain(text) }
        switch tag {
        case Self.coreTagPrefix + "null": return .null
        case Self.coreTagPrefix + "bool", Self.coreTagPrefix + "int", Self.coreTagPrefix + "float":
            // `YAMLReader` has checked that the text fits the tag.
            return Self.resolvePlain(text)
        default: return .string(text)
        }
    }

    package static func resolvePlain(_ text: String) -> ScalarValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .float(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .float(-.infinity)
        case ".nan", ".NaN", ".NAN": return .float(.nan)
        default: break
        }
        if let integer = integerText(text) { return .integer(integer) }
        if isFloatText(text), let value = Double(text) { return .float(value) }
        return .string(text)
    }

    /// Decimal (`-12`, `8_388_608`), hex (`0x1F`) or octal (`0o17`) integer text, normalised to
    /// plain decimal; nil if `text` is not an integer.
    package static func integerText(_ text: String) -> String? {
        var scalars = Substring(text)
        var negative = false
        if let first = scalars.first, first == "-" || first == "+" {
            negative = first == "-"
            scalars = scalars.dropFirst()
        }
        if scalars.hasPrefix("0x") || scalars.hasPrefix("0o") {
            let radix = scalars.hasPrefix("0x") ? 16 : 8
            guard let value = UInt64(scalars.dropFirst(2), radix: radix) else { return nil }
            return value == 0 ? "0" : (negative ? "-" : "") + String(value)
        }
        guard let first = scalars.first, first.isASCII, first.isNumber, let last = scalars.last, last != "_"
        else { return nil }
        var digits = ""
        for character in scalars {
            if character == "_" { continue }
            guard character.isASCII, character.isNumber else { return nil }
            digits.append(character)
        }
        let trimmed = digits.drop { $0 == "0" }
        if trimmed.isEmpty { return "0" }
        return (negative ? "-" : "") + trimmed
    }

    /// `[-+]? ( . digits | digits [ . digits? ] ) ( [eE] [-+]? digits )?`
    package static func isFloatText(_ text: String) -> Bool {
        var chars = Array(text.utf8)[...]
        func digits() -> Int {
            let count = chars.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            chars = chars.dropFirst(count)
            return count
        }
        if let sign = chars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { chars = chars.dropFirst() }
        var mantissa = digits()
        if chars.first == UInt8(ascii: ".") {
            chars = chars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let marker = chars.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            chars = chars.dropFirst()
            if let sign = chars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { chars = chars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return chars.isEmpty
    }
}
