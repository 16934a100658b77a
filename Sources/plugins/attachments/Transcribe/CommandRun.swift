import FoundationEssentials
import PiRelaySDK
import SupervisorIO
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One run of a program (a converter, a transcriber) with its argv, no shell: what it printed and
/// how it ended. Its pipes are read by the epoll thread of SupervisorIO, so no thread of the pool
/// waits on them; past `timeout` its process group is killed.
struct CommandRun: Sendable {
    struct Output: Sendable {
        var stdout: String
        var stderr: String
        var exit: ChildExit
        var timedOut: Bool

        var succeeded: Bool { exit == .exited(0) && !timedOut }

        /// The last line of stderr, for a note: what the program said went wrong.
        var complaint: String {
            if timedOut { return "it took too long" }
            let last = stderr.split(separator: "\n").last.map(String.init) ?? ""
            return last.isEmpty ? "\(exit)" : "\(exit): \(last.prefix(300))"
        }
    }

    static let maxOutputBytes = 1 << 20

    let arguments: [String]
    let timeout: Duration
    let workingDirectory: String

    /// What the child's events and the timeout share.
    private final class Progress: Sendable {
        let collected = Mutex((stdout: "", stderr: "", bytes: 0))
        let started = Mutex<Int32?>(nil)
        let finished = Mutex(false)
    }

    func run() async -> Output {
        let progress = Progress()
        let spec = ChildSpec(
            executable: arguments[0], arguments: Array(arguments.dropFirst()), workingDirectory: workingDirectory, maxLineBytes: 1 << 20)
        let input = ChildInput()
        input.finish()
        let (exit, timedOut) = await withTaskGroup(of: (ChildExit?, Bool).self) { group in
            group.addTask {
                let exit = await ChildProcess.run(
                    spec, input: input,
                    events: ChildEventSink { event in
                        switch event {
                        case .started(let pid): progress.started.withLock { $0 = pid }
                        case .stdout(.line(let bytes)):
                            progress.collected.withLock { output in
                                output.bytes += bytes.count + 1
                                if output.bytes <= Self.maxOutputBytes { output.stdout += String(decoding: bytes, as: UTF8.self) + "\n" }
                            }
                        case .stderr(let line): progress.collected.withLock { if $0.stderr.count < 8000 { $0.stderr += line + "\n" } }
                        default: break
                        }
                    })
                progress.finished.withLock { $0 = true }
                return (exit, false)
            }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return (nil, false) }
                guard !progress.finished.withLock({ $0 }), let pid = progress.started.withLock({ $0 }) else { return (nil, false) }
                kill(-pid, SIGKILL)
                return (nil, true)
            }
            var exit: ChildExit = .spawnFailed("not run")
            var timedOut = false
            for await (result, killed) in group {
                if let result {
                    exit = result
                    group.cancelAll()
                }
                timedOut = timedOut || killed
            }
            return (exit, timedOut)
        }
        let output = progress.collected.withLock { $0 }
        return Output(stdout: output.stdout, stderr: output.stderr, exit: exit, timedOut: timedOut)
    }

    static var defaultPath: String? { ProcessInfo.processInfo.environment["PATH"] }

    /// The program's path when it is on PATH (or an executable path as given), else nil.
    static func find(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = folder + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
