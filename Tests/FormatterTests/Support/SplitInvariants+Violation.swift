extension SplitInvariants {
    /// The first splitting property a set of chunks breaks.
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }
}
