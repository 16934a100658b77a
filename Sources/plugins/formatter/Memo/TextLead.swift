/// A text's first bytes (up to 16), packed into two words: what a memo compares first, so that of
/// its many kept texts only those that could start the same are compared byte by byte. A full
/// memo (the formatter keeps 128 redacted texts) was looked through at every live view, each
/// entry copied and compared: a fifth of a view's work.
struct TextLead: Sendable, Equatable {
    static let size = 16

    /// How many bytes it holds.
    let count: Int
    let low: UInt64
    let high: UInt64

    /// The first `limit` bytes of `text` (at most `size`, fewer when the text is shorter).
    init(_ text: String, limit: Int = size) {
        var (low, high, count): (UInt64, UInt64, Int) = (0, 0, 0)
        for byte in text.utf8.prefix(min(limit, Self.size)) {
            if count < 8 { low |= UInt64(byte) << (8 * count) } else { high |= UInt64(byte) << (8 * (count - 8)) }
            count += 1
        }
        (self.low, self.high, self.count) = (low, high, count)
    }

    /// False when a text whose lead (of the full size) is `text` surely does not start with the
    /// bytes this lead holds; true when it may, which a byte-wise comparison then settles.
    func mayStart(_ text: TextLead) -> Bool {
        guard text.count >= count else { return false }
        return text.low & Self.mask(count) == low && text.high & Self.mask(count - 8) == high
    }

    /// The low `bytes` bytes of a word set (none when `bytes` ≤ 0, all from 8 on).
    private static func mask(_ bytes: Int) -> UInt64 {
        bytes <= 0 ? 0 : bytes >= 8 ? ~0 : (1 << (8 * UInt64(bytes))) - 1
    }
}
