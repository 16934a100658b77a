extension ToolSummary {
    /// `$ command`, and how it ended when it failed: `❌ `$ make test` (exit 2)`.
    var bash: String {
        let command = code("$ " + (string("command") ?? ""))
        guard call.isError, let status = ExitStatus(output: call.output) else { return command }
        switch status {
        case .code(let n): return command + " (exit \(n))"
        case .timedOut: return command + " (timed out)"
        }
    }
}
