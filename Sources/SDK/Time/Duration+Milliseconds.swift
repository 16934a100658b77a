extension Duration {
    /// Whole milliseconds, rounded toward zero: what the protocol's `…Ms` fields, libcurl's
    /// timeouts and log lines take.
    package var inMilliseconds: Int {
        let parts = components
        return Int(parts.seconds) * 1000 + Int(parts.attoseconds / 1_000_000_000_000_000)
    }

    /// Seconds with the fraction, for figures shown to people.
    package var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
