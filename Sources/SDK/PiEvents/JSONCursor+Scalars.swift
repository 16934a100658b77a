/// Reading the numbers and booleans the reader keeps.
extension JSONCursor {
    /// An integer value; nil (value skipped) for `null`, non-numbers, fractions and out-of-range
    /// values. `3.0` and `3e2` are accepted because JSON does not distinguish integers.
    mutating func readInt() throws(JSONParseError) -> Int? {
        skipWhitespace()
        guard p < end, p.pointee == ASCII.minus || isDigit(p.pointee) else {
            try skipValue()
            return nil
        }
        let s = p
        try skipNumber()
        let count = p - s
        var q = s
        let negative = q.pointee == ASCII.minus
        if negative { q += 1 }
        var value = 0
        var overflow = false
        while q < p, isDigit(q.pointee) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(q.pointee &- ASCII.zero))
            value = a
            overflow = overflow || o1 || o2
            q += 1
        }
        if q == p {
            return overflow ? nil : (negative ? -value : value)
        }
        // Fraction or exponent: rare, let the standard library do it.
        let text = String(decoding: UnsafeBufferPointer(start: s, count: count), as: UTF8.self)
        guard let d = Double(text), d.rounded() == d, abs(d) < 9.0e15 else { return nil }
        return Int(d)
    }

    /// A boolean value; nil (value skipped) for `null` and non-booleans.
    mutating func readBool() throws(JSONParseError) -> Bool? {
        skipWhitespace()
        guard p < end else { throw error("unexpected end of input") }
        switch p.pointee {
        case ASCII.lowerT:
            try skipLiteral("true")
            return true
        case ASCII.lowerF:
            try skipLiteral("false")
            return false
        default:
            try skipValue()
            return nil
        }
    }
}
