/// A `pi-relayd` session command that was expected to succeed did not.
struct SessionCommandFailure: Error, CustomStringConvertible {
    let result: CLIResult

    var description: String { "unexpected failure: \(result)" }
}
