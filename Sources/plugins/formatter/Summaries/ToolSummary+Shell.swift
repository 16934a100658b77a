extension ToolSummary {
    /// `$ command`, and how it ended when it failed: `❌ `$ make test` (exit 2)`. The exit code
    /// comes from `details.exitCode` when the supervisor recorded one, else from the output text.
    var bash: String {
        let command = code("$ " + (string("command") ?? ""))
        guard call.isError else { return command }
        let status = call.details["exitCode"]?.intValue.map { ExitStatus.code($0) } ?? ExitStatus(output: call.output)
        switch status {
        case .code(let exitCode)?: return command + " (exit \(exitCode))"
        case .timedOut?: return command + " (timed out)"
        case nil: return command
        }
    }
}
