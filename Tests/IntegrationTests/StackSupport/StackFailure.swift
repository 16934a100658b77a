/// A full-stack check that could not even be made (a fake that did not start, an answer of the
/// wrong shape); carries what was seen, so the failure explains itself.
struct StackFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
