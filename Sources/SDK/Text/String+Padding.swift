extension String {
    /// Zero-pads a number's digits, for fixed-point output without Foundation.
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
