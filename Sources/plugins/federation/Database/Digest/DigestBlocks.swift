/// The padding SHA-256 and MD5 share (FIPS 180-4 §5.1.1, RFC 1321 §3.1–3.2): a 1 bit, zeros up
/// to 56 bytes into a 64-byte block, then the message's length in bits, in the byte order of
/// the digest (big-endian for SHA-256, little-endian for MD5).
enum DigestBlocks {
    static let size = 64

    /// `message` padded; `priorBlocks` whole blocks already compressed count in its length
    /// (HMAC's keyed pad).
    static func padded(_ message: [UInt8], lengthBigEndian: Bool, priorBlocks: Int = 0) -> [UInt8] {
        var bytes = message
        bytes.append(0x80)
        while bytes.count % size != 56 { bytes.append(0) }
        let bits = UInt64(message.count + priorBlocks * size) &* 8
        for index in 0..<8 {
            let shift = lengthBigEndian ? UInt64(56 - 8 * index) : UInt64(8 * index)
            bytes.append(UInt8(truncatingIfNeeded: bits >> shift))
        }
        return bytes
    }
}
