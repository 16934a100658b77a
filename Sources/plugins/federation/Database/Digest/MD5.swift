import Glibc

/// MD5 (RFC 1321), for PostgreSQL's `md5` password method only: the server asks for
/// md5(md5(password + user) + salt) in hex. Nothing else here trusts MD5.
enum MD5 {
    /// RFC 1321 §3.4: T[i] is the integer part of 4294967296 × abs(sin(i)), i in radians.
    private static let table: [UInt32] = (1...64).map { UInt32(abs(sin(Double($0))) * 4_294_967_296) }
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    static func hash(_ message: [UInt8]) -> [UInt8] {
        let bytes = DigestBlocks.padded(message, lengthBigEndian: false)
        var state: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476]
        var words = [UInt32](repeating: 0, count: 16)
        for offset in stride(from: 0, to: bytes.count, by: DigestBlocks.size) {
            for index in 0..<16 {
                let at = offset + 4 * index
                words[index] = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for step in 0..<64 {
                let (mixed, word): (UInt32, Int) =
                    switch step / 16 {
                    case 0: ((b & c) | (~b & d), step)
                    case 1: ((d & b) | (~d & c), (5 * step + 1) % 16)
                    case 2: (b ^ c ^ d, (3 * step + 5) % 16)
                    default: (c ^ (b | ~d), (7 * step) % 16)
                    }
                let sum = a &+ mixed &+ table[step] &+ words[word]
                let shift = shifts[(step / 16) * 4 + step % 4]
                (a, d, c, b) = (d, c, b, b &+ (sum << shift | sum >> (32 - shift)))
            }
            for (index, value) in [a, b, c, d].enumerated() { state[index] = state[index] &+ value }
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }
}
