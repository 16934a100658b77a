extension SecretScanner {
    static let privateKeyMask = "[REDACTED PRIVATE KEY]"

    /// A `-----BEGIN … PRIVATE KEY-----` block, through its END line or, when there is none (a
    /// truncated tool output, a block still streaming), through the end of the text.
    ///
    /// The replacement is built so that a block cut short is a prefix of the whole block's: a
    /// block that spans lines becomes the mask and one LF (the LF that ended the END line is
    /// absorbed), so "BEGIN…\nbody\n" and "BEGIN…\nbody\nEND…\nmore" both start "mask\n".
    mutating func privateKey(at i: Int) -> Int? {
        guard matches("-----BEGIN ", at: i) else { return nil }
        var j = i + 11
        let labelStart = j
        while j < count, j - labelStart < 60, bytes[j] != UInt8(ascii: "-"), !Self.isLineEnd(bytes[j]) { j += 1 }
        guard matches("-----", at: j), contains("PRIVATE KEY", in: labelStart..<j) else { return nil }
        let bodyStart = j + 5
        guard let endMarker = find("-----END ", from: bodyStart) else {
            let spansLines = bytes[i...].contains(0x0A)
            replace(i..<count, with: Self.privateKeyMask + (spansLines && bytes.last == 0x0A ? "\n" : ""))
            return count
        }
        var end = endMarker + 9
        while end < count, end - endMarker < 80, bytes[end] != UInt8(ascii: "-"), !Self.isLineEnd(bytes[end]) { end += 1 }
        end = matches("-----", at: end) ? end + 5 : end
        let spansLines = bytes[i..<end].contains(0x0A)
        if spansLines {
            if end < count, bytes[end] == 0x0A { end += 1 }
            replace(i..<end, with: Self.privateKeyMask + "\n")
        } else {
            replace(i..<end, with: Self.privateKeyMask)
        }
        return end
    }

    private func contains(_ literal: StaticString, in range: Range<Int>) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard range.count >= n else { return false }
        for s in range.lowerBound...(range.upperBound - n) where matches(literal, at: s) { return true }
        return false
    }

    private func find(_ literal: StaticString, from start: Int) -> Int? {
        let first = literal.utf8Start[0]
        var s = start
        while s < count {
            if bytes[s] == first, matches(literal, at: s) { return s }
            s += 1
        }
        return nil
    }
}
