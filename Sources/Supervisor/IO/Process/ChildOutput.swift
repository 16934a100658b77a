import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program run to its end with its stdin closed (git, a converter, a transcriber): its stdout
/// lines up to a cap, the start of its stderr, and how it ended. Past `timeout` its process group
/// is killed. Its pipes are read by the epoll thread, like every child's.
package struct ChildOutput: Sendable {
    package var lines: [String]
    /// stdout went past `maxBytes`: the lines after that are not kept.
    package var truncated: Bool
    package var stderr: String
    package var exit: ChildExit
    package var timedOut: Bool

    package var succeeded: Bool { exit == .exited(0) && !timedOut }

    /// What the children's events and the deadline share.
    private final class Collected: Sendable {
        let output = Mutex((lines: [String](), bytes: 0, truncated: false, stderr: ""))
        let pid = Mutex<Int32?>(nil)
        let timedOut = Mutex(false)
    }

    package static func collect(_ spec: ChildSpec, maxBytes: Int, maxStderr: Int = 8000, timeout: Duration? = nil) async -> ChildOutput {
        let collected = Collected()
        let input = ChildInput()
        input.finish()
        let events = ChildEventSink { event in
            switch event {
            case .started(let pid): collected.pid.withLock { $0 = pid }
            case .stdout(.line(let bytes)):
                collected.output.withLock { output in
                    output.bytes += bytes.count + 1
                    if output.bytes > maxBytes { output.truncated = true } else { output.lines.append(String(decoding: bytes, as: UTF8.self)) }
                }
            case .stdoutOversized, .stdout(.oversized): collected.output.withLock { $0.truncated = true }
            case .stderr(let line): collected.output.withLock { if $0.stderr.count < maxStderr { $0.stderr += line + "\n" } }
            default: break
            }
        }
        let exit: ChildExit
        if let timeout {
            exit = await withDeadline(
                timeout,
                onTimeout: {
                    guard let pid = collected.pid.withLock({ $0 }) else { return }
                    collected.timedOut.withLock { $0 = true }
                    ChildProcess.signalGroup(pid, SIGKILL)
                }
            ) { await ChildProcess.run(spec, input: input, events: events) }
        } else {
            exit = await ChildProcess.run(spec, input: input, events: events)
        }
        let output = collected.output.withLock { $0 }
        return ChildOutput(
            lines: output.lines, truncated: output.truncated, stderr: output.stderr, exit: exit, timedOut: collected.timedOut.withLock { $0 })
    }
}
