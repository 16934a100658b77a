extension SecretScanner {
    static let privateKeyMask = "[REDACTED PRIVATE KEY]"

    /// A `-----BEGIN … PRIVATE KEY-----` block, through its END line or, when there is none (a
    /// truncated tool output, a block still streaming), through the end of the text.
    ///
    /// The replacement is built so that a block cut short is a prefix of the whole block's: a
    /// block that spans lines becomes the mask and one LF (the LF that ended the END line is
    /// absorbed), so "BEGIN…\nbody\n" and "BEGIN…\nbody\nEND…\nmore" both start "mask\n".
    mutating func privateKey(at position: Int) -> Int? {
        guard matches("-----BEGIN ", at: position) else { return nil }
        var cursor = position + 11
        let labelStart = cursor
        while cursor < count, cursor - labelStart < 60, bytes[cursor] != UInt8(ascii: "-"), !Self.isLineEnd(bytes[cursor]) { cursor += 1 }
        guard matches("-----", at: cursor), contains("PRIVATE KEY", in: labelStart..<cursor) else { return nil }
        let bodyStart = cursor + 5
        guard let endMarker = find("-----END ", from: bodyStart) else {
            let spansLines = bytes[position...].contains(0x0A)
            replace(position..<count, with: Self.privateKeyMask + (spansLines && bytes.last == 0x0A ? "\n" : ""))
            return count
        }
        var end = endMarker + 9
        while end < count, end - endMarker < 80, bytes[end] != UInt8(ascii: "-"), !Self.isLineEnd(bytes[end]) { end += 1 }
        end = matches("-----", at: end) ? end + 5 : end
        let spansLines = bytes[position..<end].contains(0x0A)
        if spansLines {
            if end < count, bytes[end] == 0x0A { end += 1 }
            replace(position..<end, with: Self.privateKeyMask + "\n")
        } else {
            replace(position..<end, with: Self.privateKeyMask)
        }
        return end
    }

    private func contains(_ literal: StaticString, in range: Range<Int>) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard range.count >= length else { return false }
        for candidate in range.lowerBound...(range.upperBound - length) where matches(literal, at: candidate) { return true }
        return false
    }

    private func find(_ literal: StaticString, from start: Int) -> Int? {
        let first = literal.utf8Start[0]
        var position = start
        while position < count {
            if bytes[position] == first, matches(literal, at: position) { return position }
            position += 1
        }
        return nil
    }
}
