import PiRelaySDK
import SupervisorIO
import Synchronization

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
        let collected = Mutex(Output(lines: [], status: -1, truncated: false, stderr: ""))
        let size = Mutex(0)
        var env = environment
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["LC_ALL"] = "C"
        let spec = ChildSpec(
            executable: "git",
            arguments: ["-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "diff.external=", "--no-pager"] + prefix + arguments,
            environment: env, workingDirectory: cwd, maxLineBytes: 1 << 20)
        let input = ChildInput()
        input.finish()
        let exit = await ChildProcess.run(
            spec, input: input,
            events: ChildEventSink { event in
                switch event {
                case .stdout(.line(let bytes)):
                    let total = size.withLock {
                        $0 += bytes.count + 1; return $0
                    }
                    collected.withLock { output in
                        if total > Self.maxOutputBytes {
                            output.truncated = true
                        } else {
                            output.lines.append(String(decoding: bytes, as: UTF8.self))
                        }
                    }
                case .stdoutOversized, .stdout(.oversized): collected.withLock { $0.truncated = true }
                case .stderr(let line): collected.withLock { if $0.stderr.count < 4000 { $0.stderr += line + "\n" } }
                default: break
                }
            })
        var output = collected.withLock { $0 }
        switch exit {
        case .exited(let status): output.status = status
        case .signaled(let signal): output.status = 128 + signal
        case .spawnFailed(let why): output.stderr = why
        }
        return output
    }
}
