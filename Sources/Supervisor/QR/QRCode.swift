/// A QR code (ISO/IEC 18004) for bytes: byte mode, error correction level M, versions 1–10,
/// the mask with the lowest penalty unless one is asked for. `modules[row][column]` is true for
/// dark. Pure: `pi-relayd pair` draws it in the terminal for Telegram's pairing link.
package struct QRCode: Sendable, Equatable {
    package let version: QRVersion
    package private(set) var mask: Int
    /// Set only while the code is built (by the layout extension).
    package var modules: [[Bool]]
    /// Finder, timing, alignment, format and version modules: never data, never masked.
    package var reserved: [[Bool]]

    package struct TooLong: Error, CustomStringConvertible {
        package let count: Int
        package var description: String { "\(count) bytes do not fit in a version 10 QR code (213 at most)" }
    }

    package var size: Int { version.size }

    package init(bytes: [UInt8], mask fixedMask: Int? = nil) throws {
        guard let version = QRVersion.fitting(bytes.count) else { throw TooLong(count: bytes.count) }
        self.version = version
        let size = version.size
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        reserved = modules
        mask = 0
        drawFunctionPatterns()
        place(Self.codewords(bytes, version: version))
        let chosen = fixedMask ?? (0..<8).min { Self.penalty(masked($0)) < Self.penalty(masked($1)) } ?? 0
        modules = masked(chosen)
        mask = chosen
    }

    /// Data, then padding, split into blocks, each followed by its error correction, interleaved.
    package static func codewords(_ bytes: [UInt8], version: QRVersion) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version.countBits)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = version.dataCodewords * 8
        append(0, min(4, capacity - bits.count))
        if bits.count % 8 != 0 { append(0, 8 - bits.count % 8) }
        var data: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(0) { ($0 << 1) | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while data.count < version.dataCodewords {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        var blocks: [[UInt8]] = []
        var start = 0
        for length in version.blocks {
            blocks.append(Array(data[start..<start + length]))
            start += length
        }
        let corrections = blocks.map { ReedSolomon.remainder(of: $0, degree: version.ecPerBlock) }
        var out: [UInt8] = []
        for index in 0..<(version.blocks.max() ?? 0) {
            for block in blocks where index < block.count { out.append(block[index]) }
        }
        for index in 0..<version.ecPerBlock {
            for correction in corrections { out.append(correction[index]) }
        }
        return out
    }
}
