import PiRelaySDK
import SupervisorIO

/// Runs `git` in a session's folder, its pipes read by the supervisor's epoll thread (no thread
/// of the pool blocks on them), and collects what it printed. The repository is only read:
/// optional locks are off, and every index and object the dashboard writes goes to its own
/// folder (`environment`).
struct GitRunner: Sendable {
    /// More than a page should hold; a bigger output is cut and marked.
    static let maxOutputBytes = 4 << 20

    struct Output: Sendable {
        var lines: [String]
        var status: Int32
        var truncated: Bool
        var stderr: String
    }

    let cwd: String
    /// `-c` settings before the command.
    var prefix: [String] = []
    var environment: [String: String] = [:]

    func run(_ arguments: [String]) async -> Output {
        var env = environment
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["LC_ALL"] = "C"
        let spec = ChildSpec(
            executable: "git",
            arguments: ["-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "diff.external=", "--no-pager"] + prefix + arguments,
            environment: env, workingDirectory: cwd, maxLineBytes: 1 << 20)
        let ran = await ChildOutput.collect(spec, maxBytes: Self.maxOutputBytes, maxStderr: 4000)
        var output = Output(lines: ran.lines, status: -1, truncated: ran.truncated, stderr: ran.stderr)
        switch ran.exit {
        case .exited(let status): output.status = status
        case .signaled(let signal): output.status = 128 + signal
        case .spawnFailed(let why): output.stderr = why
        }
        return output
    }
}
