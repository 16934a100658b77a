/// An end-to-end check that could not even be made: a command failed, an answer had the wrong
/// shape. Carries what was seen, so the failure explains itself.
struct E2EFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
