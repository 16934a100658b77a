import Foundation
import Synchronization

/// Runs `pi-relayd <args>` against one test home, as a person would from a shell.
struct CLI: Sendable {
    let environment: [String: String]
    /// Where each run's stdout and stderr files go.
    let scratch: String

    private static let runs = Atomic<Int>(0)

    /// Runs the command to its end. A command still running after `timeout` is killed and
    /// reported as an error: a CLI call that hangs is a bug worth a clear failure.
    /// `folder`: where the command runs (the shell's current directory).
    func run(_ arguments: [String], in folder: String? = nil, timeout: Duration = .seconds(60)) async throws -> CLIResult {
        let n = Self.runs.add(1, ordering: .relaxed).newValue
        let base = "\(scratch)/cli-\(n)"
        let started = ContinuousClock.now
        let process = try SpawnedProcess(
            BuildProducts.relayd, arguments, environment: environment,
            stdoutPath: base + ".out", stderrPath: base + ".err", workingDirectory: folder)
        guard let exit = await process.wait(timeout: timeout) else {
            process.signalGroup(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
            throw HungCommand(arguments: arguments, timeout: timeout)
        }
        let result = CLIResult(
            arguments: arguments, exit: exit, stdout: process.stdout, stderr: process.stderr,
            elapsed: ContinuousClock.now - started)
        try? FileManager.default.removeItem(atPath: base + ".out")
        try? FileManager.default.removeItem(atPath: base + ".err")
        return result
    }

    func run(_ arguments: String..., timeout: Duration = .seconds(60)) async throws -> CLIResult {
        try await run(arguments, timeout: timeout)
    }

    struct HungCommand: Error, CustomStringConvertible {
        let arguments: [String]
        let timeout: Duration
        var description: String { "pi-relayd \(arguments.joined(separator: " ")) did not finish within \(timeout)" }
    }
}
