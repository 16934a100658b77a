extension SecretScanner {
    /// `Authorization: Bearer x`, `"authorization": "Basic x"`, `Proxy-Authorization=Bot x`:
    /// keeps the scheme, masks the credentials.
    mutating func authorization(at i: Int) -> Int? {
        guard matches("authorization", at: i, caseInsensitive: true) else { return nil }
        var j = i + 13
        guard j >= count || !Self.isIdentifier(bytes[j]) else { return nil }
        while j < count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") || Self.isSpace(bytes[j]) { j += 1 }
        guard j < count, bytes[j] == UInt8(ascii: ":") || bytes[j] == UInt8(ascii: "=") else { return nil }
        j += 1
        while j < count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") || Self.isSpace(bytes[j]) { j += 1 }
        // An auth scheme is a word followed by one space and then more text.
        let word = run(from: j, while: { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == UInt8(ascii: "-") })
        if word > j, word + 1 < count, bytes[word] == 0x20, !Self.isSpace(bytes[word + 1]), !Self.isLineEnd(bytes[word + 1]) {
            j = word + 1
        }
        let end = run(from: j, while: Self.isCredential)
        guard end > j else { return nil }
        mask(j..<end)
        return end
    }

    /// A bearer token outside an Authorization header (`-H "Bearer …"`, `token: Bearer …`).
    mutating func bearer(at i: Int) -> Int? {
        guard matches("bearer ", at: i, caseInsensitive: true) else { return nil }
        let start = i + 7
        let end = run(from: start, while: Self.isCredential)
        guard end - start >= 16 || isMask(start..<end) else { return nil }
        mask(start..<end)
        return end
    }

    /// The password in `scheme://user:password@host`.
    mutating func urlCredentials(at i: Int) -> Int? {
        let scheme = run(from: i, while: { Self.isIdentifier($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
        guard scheme > i, matches("://", at: scheme) else { return nil }
        let userStart = scheme + 3
        var colon = -1
        var j = userStart
        while j < count {
            let c = bytes[j]
            if c == UInt8(ascii: "@") { break }
            if c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") || Self.isSpace(c) || Self.isLineEnd(c)
                || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "`") || c == UInt8(ascii: ">")
            {
                return nil
            }
            if c == UInt8(ascii: ":"), colon < 0 { colon = j }
            j += 1
        }
        guard j < count, colon >= 0, j > colon + 1 else { return nil }
        mask((colon + 1)..<j)
        return j
    }

    /// Characters of a header credential: everything up to whitespace, a quote or a comma.
    static func isCredential(_ c: UInt8) -> Bool {
        !(isSpace(c) || isLineEnd(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
            || c == UInt8(ascii: "`") || c == UInt8(ascii: ","))
    }
}
