/// The built-in redaction rules as one left-to-right pass over UTF-8 bytes (all the shapes are
/// ASCII). A hand-written scanner because a 200 KB answer must be redacted in about a millisecond,
/// twice per request.
struct SecretScanner {
    let bytes: [UInt8]
    private var out: [UInt8] = []
    /// Bytes before this offset are already in `out`; the rest is copied lazily.
    private var copied = 0
    private var changed = false

    static func redact(_ text: String) -> String {
        var scanner = SecretScanner(bytes: Array(text.utf8))
        guard scanner.run() else { return text }
        return String(decoding: scanner.out, as: UTF8.self)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    /// Scans the text; true when anything was masked.
    private mutating func run() -> Bool {
        var position = 0
        let byteCount = bytes.count
        while position < byteCount {
            let byte = bytes[position]
            if byte == UInt8(ascii: "-"), let next = privateKey(at: position) {
                position = next
                continue
            }
            if Self.isIdentifier(byte), position == 0 || !Self.isIdentifier(bytes[position - 1]) {
                if let next = secret(at: position) {
                    position = next
                    continue
                }
                // No rule starts inside a word, so skip the rest of it.
                position += 1
                while position < byteCount, Self.isIdentifier(bytes[position]) { position += 1 }
                continue
            }
            position += 1
        }
        guard changed else { return false }
        out.append(contentsOf: bytes[copied...])
        return true
    }

    /// Tries every word-start rule at `position`; returns where scanning resumes after a match.
    private mutating func secret(at position: Int) -> Int? {
        if let end = prefixedToken(at: position) ?? jsonWebToken(at: position) ?? discordToken(at: position) { return end }
        if let end = authorization(at: position) ?? bearer(at: position) ?? urlCredentials(at: position) { return end }
        return assignment(at: position)
    }

    /// Replaces `range` with `replacement`.
    mutating func replace(_ range: Range<Int>, with replacement: String) {
        if !changed { out.reserveCapacity(bytes.count + 64) }
        out.append(contentsOf: bytes[copied..<range.lowerBound])
        out.append(contentsOf: replacement.utf8)
        copied = range.upperBound
        changed = true
    }

    /// Replaces the secret value in `range` with the mask, unless it is already masked.
    mutating func mask(_ range: Range<Int>) {
        guard !isMask(range) else { return }
        replace(range, with: Redactor.mask)
    }

    func isMask(_ range: Range<Int>) -> Bool {
        range.count == 10 && bytes[range].elementsEqual(Redactor.mask.utf8)
    }

    // MARK: byte classes

    @inline(__always)
    static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == UInt8(ascii: "_")
    }

    @inline(__always)
    static func isBase64URL(_ byte: UInt8) -> Bool { isIdentifier(byte) || byte == UInt8(ascii: "-") }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    static func isLineEnd(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    /// End of the run of bytes satisfying `test` from `start`.
    func run(from start: Int, while test: (UInt8) -> Bool) -> Int {
        var end = start
        while end < bytes.count, test(bytes[end]) { end += 1 }
        return end
    }

    /// True when `literal` (ASCII, matched case-insensitively if asked) is at `position`.
    func matches(_ literal: StaticString, at position: Int, caseInsensitive: Bool = false) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard position + length <= bytes.count else { return false }
        for offset in 0..<length {
            let actual = bytes[position + offset], expected = literal.utf8Start[offset]
            if actual == expected { continue }
            if caseInsensitive, actual | 0x20 == expected | 0x20, actual | 0x20 >= 0x61, actual | 0x20 <= 0x7A { continue }
            return false
        }
        return true
    }
}
