/// Text that is not UTF-8 but plainly text: UTF-16 with its byte-order mark (PowerShell's `>`,
/// Excel's "Unicode text"), and Windows-1252 (Latin-1's superset: a CSV saved on Windows). Read
/// as such, it is inlined like any text rather than refused as binary.
enum LegacyText {
    /// The text, or nil when the bytes are neither.
    static func decode(_ bytes: [UInt8]) -> String? {
        if bytes.count >= 2, (bytes[0], bytes[1]) == (0xFF, 0xFE) || (bytes[0], bytes[1]) == (0xFE, 0xFF) {
            return utf16(bytes.dropFirst(2), bigEndian: bytes[0] == 0xFE)
        }
        return windows1252(bytes)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }

    /// Only text's bytes: no control character but tab, line feed, form feed and carriage return,
    /// none of the five Windows-1252 leaves undefined. A binary file without a NUL fails this.
    private static func windows1252(_ bytes: [UInt8]) -> String? {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x20...0x7E, 0xA0...0xFF: scalars.append(Unicode.Scalar(byte))
            case 0x80...0x9F:
                guard let scalar = high[Int(byte - 0x80)].flatMap(Unicode.Scalar.init) else { return nil }
                scalars.append(scalar)
            default: return nil
            }
        }
        return String(scalars)
    }

    /// 0x80…0x9F in Windows-1252; nil where it defines no character.
    private static let high: [UInt32?] = [
        0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil, 0x017D, nil,
        nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, nil, 0x017E, 0x0178,
    ]
}
