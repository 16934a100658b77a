import Foundation
import Synchronization

extension TestHome {
    private static let typed = Atomic<Int>(0)

    /// `pi-relayd ARGS` with `input` on its standard input, as piped in a shell.
    func run(_ arguments: [String], input: String, extra: [String: String] = [:], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        let n = Self.typed.add(1, ordering: .relaxed).newValue
        let base = "\(scratch)/typed-\(n)"
        try input.write(toFile: base + ".in", atomically: true, encoding: .utf8)
        let started = ContinuousClock.now
        let process = try SpawnedProcess(
            BuildProducts.relayd, arguments, environment: environment(extra), stdoutPath: base + ".out", stderrPath: base + ".err",
            stdinPath: base + ".in")
        guard let exit = await process.wait(timeout: timeout) else {
            process.signalGroup(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
            throw CLI.HungCommand(arguments: arguments, timeout: timeout)
        }
        return CLIResult(arguments: arguments, exit: exit, stdout: process.stdout, stderr: process.stderr, elapsed: ContinuousClock.now - started)
    }
}
