extension SecretScanner {
    /// A value assigned to a name that says it is secret (the name contains TOKEN, SECRET, KEY,
    /// PASSWORD, PASSWD or PASSPHRASE, in any case):
    ///
    /// - `.env` and shell style `API_KEY=value`, `export GH_TOKEN="value"`, `--api-key=value`,
    ///   `?access_token=value&`; with spaces around `=` only at the start of a line;
    /// - quoted keys with a quoted value: `"apiKey": "value"`, `'password' = 'value'`;
    /// - header style with a dashed name: `X-Api-Key: value`.
    ///
    /// Values that are clearly not secrets are left alone: variable references (`$X`), function
    /// calls and member paths (`getToken()`, `os.environ[…]`), booleans, null, and short numbers
    /// (`max_tokens=4096`).
    mutating func assignment(at position: Int) -> Int? {
        let nameEnd = run(from: position, while: { Self.isIdentifier($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        guard nameEnd < count else { return nil }
        // Most words are followed by none of these: skip them before looking at the name.
        switch bytes[nameEnd] {
        case UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x20, 0x09: break
        default: return nil
        }
        guard Self.isSecretName(bytes[position..<nameEnd]) else { return nil }
        let quote: UInt8? =
            position > 0 && (bytes[position - 1] == UInt8(ascii: "\"") || bytes[position - 1] == UInt8(ascii: "'")) ? bytes[position - 1] : nil
        var cursor = nameEnd
        if let quote, bytes[cursor] == quote {
            cursor += 1
            cursor = run(from: cursor, while: Self.isSpace)
            guard cursor < count, bytes[cursor] == UInt8(ascii: ":") || bytes[cursor] == UInt8(ascii: "=") else { return nil }
            cursor = run(from: cursor + 1, while: Self.isSpace)
            guard cursor < count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else { return nil }
            return maskQuoted(from: cursor)
        }
        if bytes[cursor] == UInt8(ascii: ":") {
            guard bytes[position..<nameEnd].contains(UInt8(ascii: "-")) else { return nil }
            let start = run(from: cursor + 1, while: Self.isSpace)
            guard start > cursor + 1 else { return nil }
            return maskBare(from: start)
        }
        if Self.isSpace(bytes[cursor]) {
            guard atLineStart(position) else { return nil }
            cursor = run(from: cursor, while: Self.isSpace)
            guard cursor < count, bytes[cursor] == UInt8(ascii: "=") else { return nil }
        }
        guard bytes[cursor] == UInt8(ascii: "="), cursor + 1 < count, bytes[cursor + 1] != UInt8(ascii: "=") else { return nil }
        let start = run(from: cursor + 1, while: Self.isSpace)
        if start > cursor + 1, !atLineStart(position) { return nil }
        guard start < count else { return nil }
        if bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'") { return maskQuoted(from: start) }
        return maskBare(from: start)
    }

    /// Masks the inside of the quoted string whose opening quote is at `open`.
    private mutating func maskQuoted(from open: Int) -> Int? {
        let quote = bytes[open]
        var cursor = open + 1
        while cursor < count, bytes[cursor] != quote, !Self.isLineEnd(bytes[cursor]) {
            cursor += bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
        }
        cursor = min(cursor, count)
        let value = (open + 1)..<cursor
        guard !value.isEmpty, !isHarmless(value) else { return nil }
        mask(value)
        return cursor
    }

    /// Masks an unquoted value starting at `start`.
    private mutating func maskBare(from start: Int) -> Int? {
        let end = run(from: start, while: Self.isBareValue)
        let value = start..<end
        guard !value.isEmpty, !isHarmless(value) else { return nil }
        // `token=getToken()`, `key = os.environ[...]`: code, not a secret.
        if end < count, bytes[end] == UInt8(ascii: "(") || bytes[end] == UInt8(ascii: "[") { return nil }
        mask(value)
        return end
    }

    private func isHarmless(_ value: Range<Int>) -> Bool {
        let text = bytes[value]
        if isMask(value) || text.first == UInt8(ascii: "$") || text.first == UInt8(ascii: "<") { return true }
        if text.count < 8, text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        let lower = String(decoding: text.map { $0 | 0x20 }, as: UTF8.self)
        return ["true", "false", "null", "none", "nil", "undefined"].contains(lower)
    }

    private func atLineStart(_ position: Int) -> Bool {
        var cursor = position - 1
        while cursor >= 0, !Self.isLineEnd(bytes[cursor]) {
            guard Self.isSpace(bytes[cursor]) else {
                // `export NAME = value`
                return cursor >= 5 && matches("export", at: cursor - 5) && isOnlySpaceBefore(cursor - 5)
            }
            cursor -= 1
        }
        return true
    }

    private func isOnlySpaceBefore(_ position: Int) -> Bool {
        var cursor = position - 1
        while cursor >= 0, !Self.isLineEnd(bytes[cursor]) {
            guard Self.isSpace(bytes[cursor]) else { return false }
            cursor -= 1
        }
        return true
    }

    static func isBareValue(_ byte: UInt8) -> Bool {
        !(isSpace(byte) || isLineEnd(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "`")
            || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ")")
            || byte == UInt8(ascii: "(") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">"))
    }

    /// True when the name contains one of the secret words, in any case.
    static func isSecretName(_ name: ArraySlice<UInt8>) -> Bool {
        guard name.count >= 3 else { return false }
        for word in secretWords where name.count >= word.count {
            var windowStart = name.startIndex
            while windowStart + word.count <= name.endIndex {
                var matched = 0
                while matched < word.count, name[windowStart + matched] | 0x20 == word[matched] { matched += 1 }
                if matched == word.count { return true }
                windowStart += 1
            }
        }
        return false
    }

    private static let secretWords: [[UInt8]] = ["token", "secret", "key", "password", "passwd", "passphrase"].map { Array($0.utf8) }
}
