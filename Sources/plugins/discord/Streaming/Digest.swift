/// Small non-cryptographic digests (FNV-1a) for stable, short identifiers: nonces, rate-limit keys,
/// content fingerprints. Nothing here protects a secret; it only avoids repeating one verbatim.
enum Digest {
    static func fnv1a64(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func hex64(_ text: String) -> String {
        let hex = String(fnv1a64(text), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
