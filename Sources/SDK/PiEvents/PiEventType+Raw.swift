extension PiEventType {
    /// Maps the raw `type` bytes without creating a `String` for the known names (one per line).
    init(raw: JSONRawString) {
        if !raw.hasEscapes {
            for candidate in Self.known where raw.matches(candidate.staticWireName!) {
                self = candidate
                return
            }
        }
        self.init(wireName: raw.decoded())
    }
}
