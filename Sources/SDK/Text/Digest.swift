/// Small non-cryptographic digests (FNV-1a) for stable, short identifiers: nonces, rate-limit keys,
/// file names, content checksums. Nothing here protects a secret; it only avoids repeating one
/// verbatim, or tells a torn write from a whole one.
package enum Digest {
    package static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a over `bytes`, going on from `seed` (a digest of what came before them).
    package static func fnv1a64(_ bytes: some Sequence<UInt8>, seed: UInt64 = fnvOffset) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    package static func fnv1a64(_ text: String, seed: UInt64 = fnvOffset) -> UInt64 { fnv1a64(text.utf8, seed: seed) }

    /// A digest as 16 hex digits.
    package static func hex64(_ hash: UInt64) -> String {
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    package static func hex64(_ text: String) -> String { hex64(fnv1a64(text)) }
}
