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
    func contains(_ byte: UInt8) -> Bool {
        let alnum = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        switch self {
        case .alphanumeric: return alnum
        case .word: return alnum || byte == UInt8(ascii: "_")
        case .alphanumericDash: return alnum || byte == UInt8(ascii: "-")
        case .base64URL: return alnum || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        case .base64URLDot: return alnum || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        case .upperDigit: return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
        }
    }
}
