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
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c == UInt8(ascii: "-"), let next = privateKey(at: i) {
                i = next
                continue
            }
            if Self.isIdentifier(c), i == 0 || !Self.isIdentifier(bytes[i - 1]) {
                if let next = secret(at: i) {
                    i = next
                    continue
                }
                // No rule starts inside a word, so skip the rest of it.
                i += 1
                while i < n, Self.isIdentifier(bytes[i]) { i += 1 }
                continue
            }
            i += 1
        }
        guard changed else { return false }
        out.append(contentsOf: bytes[copied...])
        return true
    }

    /// Tries every word-start rule at `i`; returns where scanning resumes after a match.
    private mutating func secret(at i: Int) -> Int? {
        if let end = prefixedToken(at: i) ?? jsonWebToken(at: i) ?? discordToken(at: i) { return end }
        if let end = authorization(at: i) ?? bearer(at: i) ?? urlCredentials(at: i) { return end }
        return assignment(at: i)
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
    static func isIdentifier(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == UInt8(ascii: "_")
    }

    @inline(__always)
    static func isBase64URL(_ c: UInt8) -> Bool { isIdentifier(c) || c == UInt8(ascii: "-") }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    @inline(__always)
    static func isLineEnd(_ c: UInt8) -> Bool { c == 0x0A || c == 0x0D }

    /// End of the run of bytes satisfying `test` from `i`.
    func run(from i: Int, while test: (UInt8) -> Bool) -> Int {
        var j = i
        while j < bytes.count, test(bytes[j]) { j += 1 }
        return j
    }

    /// True when `literal` (ASCII, matched case-insensitively if asked) is at `i`.
    func matches(_ literal: StaticString, at i: Int, caseInsensitive: Bool = false) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        for k in 0..<n {
            let a = bytes[i + k], b = literal.utf8Start[k]
            if a == b { continue }
            if caseInsensitive, a | 0x20 == b | 0x20, a | 0x20 >= 0x61, a | 0x20 <= 0x7A { continue }
            return false
        }
        return true
    }
}
