import PiRelaySDK

/// What one `pi-relayd` command did.
struct CLIResult: Sendable, CustomStringConvertible {
    let arguments: [String]
    let exit: ProcessExit
    let stdout: String
    let stderr: String
    let elapsed: Duration

    var status: Int32? {
        if case .exited(let code) = exit { return code }
        return nil
    }

    /// stdout parsed as one JSON document (for `--json` and `plugin call`).
    func json() throws -> JSONValue {
        try JSONValue.parse(stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    var description: String {
        "pi-relayd \(arguments.joined(separator: " ")): \(exit) after \(elapsed)\nstdout: \(stdout)\nstderr: \(stderr)"
    }
}
