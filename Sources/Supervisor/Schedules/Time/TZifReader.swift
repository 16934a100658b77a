/// Big-endian reads through a TZif file.
struct TZifReader {
    struct Counts {
        var utFlags = 0, standardFlags = 0, leaps = 0, times = 0, types = 0, chars = 0

        func v1Length(timeSize: Int) -> Int {
            times * timeSize + times + types * 6 + chars + leaps * (timeSize + 4) + standardFlags + utFlags
        }
    }

    let bytes: [UInt8]
    var index = 0

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, index + count <= bytes.count else { return false }
        index += count
        return true
    }

    mutating func integer(size: Int) -> Int64? {
        guard index + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
        index += size
        // Sign-extended: times before 1970 are negative, and so are offsets west of Greenwich.
        let shift = UInt64(64 - size * 8)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    mutating func header() -> (magic: Bool, version: Int, counts: Counts)? {
        guard index + 44 <= bytes.count else { return nil }
        let magic = Array(bytes[index..<index + 4]) == Array("TZif".utf8)
        let versionByte = bytes[index + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        index += 20
        var values: [Int] = []
        for _ in 0..<6 {
            guard let value = integer(size: 4), value >= 0, value < 1 << 20 else { return nil }
            values.append(Int(value))
        }
        let counts = Counts(
            utFlags: values[0], standardFlags: values[1], leaps: values[2], times: values[3], types: values[4], chars: values[5])
        return (magic, version, counts)
    }

    /// The footer: the text between two newlines after the version 2 data.
    mutating func footer() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\n") else { return nil }
        guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
    }
}
