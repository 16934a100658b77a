/// Byte constants for the JSON grammar, so the scanning code reads as the grammar. Plain integer
/// literals let the compiler fold them into the loops.
enum ASCII {
    static let quote: UInt8 = 0x22  // "
    static let backslash: UInt8 = 0x5C  // \
    static let slash: UInt8 = 0x2F  // /
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let comma: UInt8 = 0x2C  // ,
    static let colon: UInt8 = 0x3A  // :
    static let minus: UInt8 = 0x2D  // -
    static let plus: UInt8 = 0x2B  // +
    static let dot: UInt8 = 0x2E  // .
    static let zero: UInt8 = 0x30  // 0
    static let nine: UInt8 = 0x39  // 9
    static let lowerE: UInt8 = 0x65  // e
    static let upperE: UInt8 = 0x45  // E
    static let lowerT: UInt8 = 0x74  // t
    static let lowerF: UInt8 = 0x66  // f
    static let lowerN: UInt8 = 0x6E  // n
    static let lowerU: UInt8 = 0x75  // u
    static let lowerB: UInt8 = 0x62  // b
    static let lowerR: UInt8 = 0x72  // r
}
