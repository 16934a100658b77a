/// Reading the numbers and booleans the reader keeps.
extension JSONCursor {
    /// An integer value; nil (value skipped) for `null`, non-numbers, fractions and out-of-range
    /// values. `3.0` and `3e2` are accepted because JSON does not distinguish integers.
    mutating func readInt() throws(JSONParseError) -> Int? {
        skipWhitespace()
        guard head < end, head.pointee == ASCII.minus || isDigit(head.pointee) else {
            try skipValue()
            return nil
        }
        let numberStart = head
        try skipNumber()
        let count = head - numberStart
        var digit = numberStart
        let negative = digit.pointee == ASCII.minus
        if negative { digit += 1 }
        var value = 0
        var overflow = false
        while digit < head, isDigit(digit.pointee) {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(Int(digit.pointee &- ASCII.zero))
            value = sum
            overflow = overflow || o1 || o2
            digit += 1
        }
        if digit == head {
            return overflow ? nil : (negative ? -value : value)
        }
        // Fraction or exponent: rare, let the standard library do it.
        let text = String(decoding: UnsafeBufferPointer(start: numberStart, count: count), as: UTF8.self)
        guard let number = Double(text), number.rounded() == number, abs(number) < 9.0e15 else { return nil }
        return Int(number)
    }

    /// A boolean value; nil (value skipped) for `null` and non-booleans.
    mutating func readBool() throws(JSONParseError) -> Bool? {
        skipWhitespace()
        guard head < end else { throw error("unexpected end of input") }
        switch head.pointee {
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
