/// A QR code version (1–10) at error correction level M, with what ISO/IEC 18004 says about
/// its size, alignment patterns and error correction blocks. Level M restores up to 15 % of a
/// damaged code: enough for a screen, and a link of up to 213 bytes still fits in version 10.
package struct QRVersion: Sendable, Equatable {
    package let number: Int
    /// Data codewords per block, each block getting `ecPerBlock` error correction codewords.
    package let blocks: [Int]
    package let ecPerBlock: Int

    package var size: Int { 17 + 4 * number }
    package var dataCodewords: Int { blocks.reduce(0, +) }
    /// The count of a byte-mode segment takes 8 bits up to version 9, 16 from 10.
    package var countBits: Int { number < 10 ? 8 : 16 }
    /// How many bytes fit: mode (4 bits) and count before them.
    package var byteCapacity: Int { (dataCodewords * 8 - 4 - countBits) / 8 }

    /// Centres of the alignment patterns, the same list for rows and columns.
    package var alignmentCentres: [Int] {
        [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]][number]
    }

    package static let all: [QRVersion] = [
        QRVersion(number: 1, blocks: [16], ecPerBlock: 10),
        QRVersion(number: 2, blocks: [28], ecPerBlock: 16),
        QRVersion(number: 3, blocks: [44], ecPerBlock: 26),
        QRVersion(number: 4, blocks: [32, 32], ecPerBlock: 18),
        QRVersion(number: 5, blocks: [43, 43], ecPerBlock: 24),
        QRVersion(number: 6, blocks: [27, 27, 27, 27], ecPerBlock: 16),
        QRVersion(number: 7, blocks: [31, 31, 31, 31], ecPerBlock: 18),
        QRVersion(number: 8, blocks: [38, 38, 39, 39], ecPerBlock: 22),
        QRVersion(number: 9, blocks: [36, 36, 36, 37, 37], ecPerBlock: 22),
        QRVersion(number: 10, blocks: [43, 43, 43, 43, 44], ecPerBlock: 26),
    ]

    /// The smallest version that holds `count` bytes.
    package static func fitting(_ count: Int) -> QRVersion? { all.first { $0.byteCapacity >= count } }
}
