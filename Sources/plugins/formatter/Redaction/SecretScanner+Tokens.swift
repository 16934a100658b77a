extension SecretScanner {
    /// A token with a known prefix (`sk-ant-…`, `ghp_…`, `AKIA…`): masks the body.
    mutating func prefixedToken(at position: Int) -> Int? {
        guard TokenRule.firstBytes[Int(bytes[position])] else { return nil }
        for rule in TokenRule.all where matches(rule.prefix, at: position) {
            let start = position + rule.prefix.utf8CodeUnitCount
            let end = run(from: start, while: rule.body.contains)
            guard end - start >= rule.minimumLength else { continue }
            if rule.needsDigit, !bytes[start..<end].contains(where: { $0 >= 0x30 && $0 <= 0x39 }) { continue }
            mask(start..<end)
            return end
        }
        return nil
    }

    /// A JSON Web Token: `eyJ…` header, payload and signature separated by dots. Masked whole.
    mutating func jsonWebToken(at position: Int) -> Int? {
        guard matches("eyJ", at: position) else { return nil }
        let header = run(from: position, while: Self.isBase64URL)
        guard header - position >= 10, header < count, bytes[header] == UInt8(ascii: ".") else { return nil }
        let payload = run(from: header + 1, while: Self.isBase64URL)
        guard payload - header - 1 >= 10, payload < count, bytes[payload] == UInt8(ascii: ".") else { return nil }
        let signature = run(from: payload + 1, while: Self.isBase64URL)
        replace(position..<signature, with: Redactor.mask)
        return signature
    }

    /// A Discord bot token: three base64url parts separated by dots (user id, timestamp, HMAC),
    /// about 24, 6 and 27 or more characters. Masked whole.
    mutating func discordToken(at position: Int) -> Int? {
        if position > 0, bytes[position - 1] == UInt8(ascii: "-") || bytes[position - 1] == UInt8(ascii: ".") { return nil }
        let first = run(from: position, while: Self.isBase64URL)
        guard (20...40).contains(first - position), first < count, bytes[first] == UInt8(ascii: ".") else { return nil }
        let second = run(from: first + 1, while: Self.isBase64URL)
        guard (5...10).contains(second - first - 1), second < count, bytes[second] == UInt8(ascii: ".") else { return nil }
        let third = run(from: second + 1, while: Self.isBase64URL)
        guard third - second - 1 >= 25 else { return nil }
        // A letter-only run is prose or an identifier path, not a random token.
        guard bytes[position..<third].contains(where: { $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        replace(position..<third, with: Redactor.mask)
        return third
    }
}
