extension ConfigField {
    /// A whole number within `range`.
    package func integer(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        let digits: String
        switch node.scalarValue {
        case .integer(let written): digits = written
        case .float(let float) where float.rounded() == float && abs(float) < 1e15: digits = String(Int(float))
        case .float: throw error("must be a whole number, got a fraction")
        default: throw mismatch("a whole number")
        }
        guard let value = Int(digits) else {
            throw digits.hasPrefix("-") ? error("must be at least \(range.lowerBound)") : error("must be at most \(range.upperBound)")
        }
        try check(value, in: range)
        return value
    }

    /// A number (fractions allowed) within `range`.
    package func number(in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let value: Double
        switch node.scalarValue {
        case .integer(let written): value = Double(written) ?? .infinity
        case .float(let float): value = float
        default: throw mismatch("a number")
        }
        guard value.isFinite else { throw error("must be a finite number") }
        if value < range.lowerBound { throw error("must be at least \(Self.format(range.lowerBound)), got \(Self.format(value))") }
        if value > range.upperBound { throw error("must be at most \(Self.format(range.upperBound)), got \(Self.format(value))") }
        return value
    }

    /// `...Seconds` settings: a number of seconds, fractions allowed (`0.5`).
    package func seconds(allowZero: Bool) throws(ConfigError) -> Duration {
        let value = try number(in: 0...Self.maximumSeconds)
        if value == 0 && !allowZero { throw error("must be more than 0") }
        return .seconds(value)
    }

    /// `...Ms` settings: whole milliseconds.
    package func milliseconds(minimum: Int) throws(ConfigError) -> Duration {
        .milliseconds(try integer(in: minimum...Self.maximumMilliseconds))
    }

    /// About 31 years: long enough for "practically never", short enough not to overflow.
    package static let maximumSeconds: Double = 1_000_000_000
    package static let maximumMilliseconds = 1_000_000_000_000

    private func check(_ value: Int, in range: ClosedRange<Int>) throws(ConfigError) {
        if value < range.lowerBound { throw error("must be at least \(range.lowerBound), got \(value)") }
        if value > range.upperBound { throw error("must be at most \(range.upperBound), got \(value)") }
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
