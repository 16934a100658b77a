/// The characters a token body may contain.
enum TokenAlphabet: Sendable {
    case alphanumeric
    /// Letters, digits and `_`.
    case word
    /// Letters, digits and `-`.
    case alphanumericDash
    /// Letters, digits, `-` and `_`.
    case base64URL
    case base64URLDot
    /// `A`–`Z` and digits.
    case upperDigit

    @inline(__always)
    func contains(_ c: UInt8) -> Bool {
        let alnum = (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A)
        switch self {
        case .alphanumeric: return alnum
        case .word: return alnum || c == UInt8(ascii: "_")
        case .alphanumericDash: return alnum || c == UInt8(ascii: "-")
        case .base64URL: return alnum || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        case .base64URLDot: return alnum || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
        case .upperDigit: return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A)
        }
    }
}
