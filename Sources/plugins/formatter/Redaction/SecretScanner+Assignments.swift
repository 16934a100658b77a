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
    mutating func assignment(at i: Int) -> Int? {
        let nameEnd = run(from: i, while: { Self.isIdentifier($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        guard nameEnd < count else { return nil }
        // Most words are followed by none of these: skip them before looking at the name.
        switch bytes[nameEnd] {
        case UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x20, 0x09: break
        default: return nil
        }
        guard Self.isSecretName(bytes[i..<nameEnd]) else { return nil }
        let quote: UInt8? = i > 0 && (bytes[i - 1] == UInt8(ascii: "\"") || bytes[i - 1] == UInt8(ascii: "'")) ? bytes[i - 1] : nil
        var j = nameEnd
        if let quote, bytes[j] == quote {
            j += 1
            j = run(from: j, while: Self.isSpace)
            guard j < count, bytes[j] == UInt8(ascii: ":") || bytes[j] == UInt8(ascii: "=") else { return nil }
            j = run(from: j + 1, while: Self.isSpace)
            guard j < count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") else { return nil }
            return maskQuoted(from: j)
        }
        if bytes[j] == UInt8(ascii: ":") {
            guard bytes[i..<nameEnd].contains(UInt8(ascii: "-")) else { return nil }
            let start = run(from: j + 1, while: Self.isSpace)
            guard start > j + 1 else { return nil }
            return maskBare(from: start)
        }
        if Self.isSpace(bytes[j]) {
            guard atLineStart(i) else { return nil }
            j = run(from: j, while: Self.isSpace)
            guard j < count, bytes[j] == UInt8(ascii: "=") else { return nil }
        }
        guard bytes[j] == UInt8(ascii: "="), j + 1 < count, bytes[j + 1] != UInt8(ascii: "=") else { return nil }
        let start = run(from: j + 1, while: Self.isSpace)
        if start > j + 1, !atLineStart(i) { return nil }
        guard start < count else { return nil }
        if bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'") { return maskQuoted(from: start) }
        return maskBare(from: start)
    }

    /// Masks the inside of the quoted string whose opening quote is at `open`.
    private mutating func maskQuoted(from open: Int) -> Int? {
        let quote = bytes[open]
        var j = open + 1
        while j < count, bytes[j] != quote, !Self.isLineEnd(bytes[j]) {
            j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1
        }
        j = min(j, count)
        let value = (open + 1)..<j
        guard !value.isEmpty, !isHarmless(value) else { return nil }
        mask(value)
        return j
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
        let v = bytes[value]
        if isMask(value) || v.first == UInt8(ascii: "$") || v.first == UInt8(ascii: "<") { return true }
        if v.count < 8, v.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        let lower = String(decoding: v.map { $0 | 0x20 }, as: UTF8.self)
        return ["true", "false", "null", "none", "nil", "undefined"].contains(lower)
    }

    private func atLineStart(_ i: Int) -> Bool {
        var j = i - 1
        while j >= 0, !Self.isLineEnd(bytes[j]) {
            guard Self.isSpace(bytes[j]) else {
                // `export NAME = value`
                return j >= 5 && matches("export", at: j - 5) && isOnlySpaceBefore(j - 5)
            }
            j -= 1
        }
        return true
    }

    private func isOnlySpaceBefore(_ i: Int) -> Bool {
        var j = i - 1
        while j >= 0, !Self.isLineEnd(bytes[j]) {
            guard Self.isSpace(bytes[j]) else { return false }
            j -= 1
        }
        return true
    }

    static func isBareValue(_ c: UInt8) -> Bool {
        !(isSpace(c) || isLineEnd(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "`")
            || c == UInt8(ascii: ",") || c == UInt8(ascii: ";") || c == UInt8(ascii: "&") || c == UInt8(ascii: ")")
            || c == UInt8(ascii: "(") || c == UInt8(ascii: "[") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">"))
    }

    /// True when the name contains one of the secret words, in any case.
    static func isSecretName(_ name: ArraySlice<UInt8>) -> Bool {
        guard name.count >= 3 else { return false }
        for word in secretWords where name.count >= word.count {
            var s = name.startIndex
            while s + word.count <= name.endIndex {
                var k = 0
                while k < word.count, name[s + k] | 0x20 == word[k] { k += 1 }
                if k == word.count { return true }
                s += 1
            }
        }
        return false
    }

    private static let secretWords: [[UInt8]] = ["token", "secret", "key", "password", "passwd", "passphrase"].map { Array($0.utf8) }
}
