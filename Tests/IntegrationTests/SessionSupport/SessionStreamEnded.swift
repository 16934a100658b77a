/// A `pi-relayd stream` a test was reading ended before printing what the test waited for.
struct SessionStreamEnded: Error, CustomStringConvertible {
    let exit: ProcessExit
    let stdout: String
    let stderr: String

    var description: String { "pi-relayd stream ended (\(exit))\nstdout: \(stdout.suffix(2000))\nstderr: \(stderr)" }
}
