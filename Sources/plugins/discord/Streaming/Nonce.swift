import PiRelaySDK

/// Message nonces for idempotent posting: Discord answers a repeated create (same channel, same
/// nonce, `enforce_nonce: true`, within minutes) with the original message. A nonce is derived
/// from what is being posted (a delivery id, a run id) and the part's index, so a delivery that
/// is replayed after a crash posts nothing twice.
enum Nonce {
    /// At most 25 characters (Discord's limit): 20 hex digits of two FNV-1a digests of `base`,
    /// "-", and up to 4 characters naming the part.
    static func make(_ base: String, part: String) -> String {
        let primary = Digest.fnv1a64(base)
        let secondary = Digest.fnv1a64(base, seed: 0x8422_2325_cbf2_9ce4)
        let hex = pad(String(primary, radix: 16), 16) + pad(String(secondary & 0xffff, radix: 16), 4)
        return hex + "-" + String(part.prefix(4))
    }

    static func make(_ base: String, index: Int) -> String {
        make(base, part: String(index, radix: 36))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
