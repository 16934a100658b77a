/// A test scenario failed: the error, plus what the daemon logged, so a failure on a CI machine
/// can be understood without running it again.
struct ScenarioFailure: Error, CustomStringConvertible {
    let underlying: any Error
    let diagnostics: String

    var description: String { "\(underlying)\n--- diagnostics ---\n\(diagnostics)" }
}
