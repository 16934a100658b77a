extension SecretScanner {
    /// `Authorization: Bearer x`, `"authorization": "Basic x"`, `Proxy-Authorization=Bot x`:
    /// keeps the scheme, masks the credentials.
    mutating func authorization(at position: Int) -> Int? {
        guard matches("authorization", at: position, caseInsensitive: true) else { return nil }
        var cursor = position + 13
        guard cursor >= count || !Self.isIdentifier(bytes[cursor]) else { return nil }
        while cursor < count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") || Self.isSpace(bytes[cursor]) { cursor += 1 }
        guard cursor < count, bytes[cursor] == UInt8(ascii: ":") || bytes[cursor] == UInt8(ascii: "=") else { return nil }
        cursor += 1
        while cursor < count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") || Self.isSpace(bytes[cursor]) { cursor += 1 }
        // An auth scheme is a word followed by one space and then more text.
        let word = run(from: cursor, while: { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == UInt8(ascii: "-") })
        if word > cursor, word + 1 < count, bytes[word] == 0x20, !Self.isSpace(bytes[word + 1]), !Self.isLineEnd(bytes[word + 1]) {
            cursor = word + 1
        }
        let end = run(from: cursor, while: Self.isCredential)
        guard end > cursor else { return nil }
        mask(cursor..<end)
        return end
    }

    /// A bearer token outside an Authorization header (`-H "Bearer …"`, `token: Bearer …`).
    mutating func bearer(at position: Int) -> Int? {
        guard matches("bearer ", at: position, caseInsensitive: true) else { return nil }
        let start = position + 7
        let end = run(from: start, while: Self.isCredential)
        guard end - start >= 16 || isMask(start..<end) else { return nil }
        mask(start..<end)
        return end
    }

    /// The password in `scheme://user:password@host`.
    mutating func urlCredentials(at position: Int) -> Int? {
        let scheme = run(
            from: position, while: { Self.isIdentifier($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
        guard scheme > position, matches("://", at: scheme) else { return nil }
        let userStart = scheme + 3
        var colon = -1
        var cursor = userStart
        while cursor < count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "@") { break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || Self.isSpace(byte) || Self.isLineEnd(byte)
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: ">")
            {
                return nil
            }
            if byte == UInt8(ascii: ":"), colon < 0 { colon = cursor }
            cursor += 1
        }
        guard cursor < count, colon >= 0, cursor > colon + 1 else { return nil }
        mask((colon + 1)..<cursor)
        return cursor
    }

    /// Characters of a header credential: everything up to whitespace, a quote or a comma.
    static func isCredential(_ byte: UInt8) -> Bool {
        !(isSpace(byte) || isLineEnd(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: ","))
    }
}
