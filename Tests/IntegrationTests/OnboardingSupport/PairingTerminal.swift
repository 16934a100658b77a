import Foundation
import PiRelaySDK
import Synchronization

/// `pi-relayd pair MESSENGER --json` running in the background, as in a second terminal: the
/// test reads the code it printed, plays the chat user, and waits for the command to end.
/// `answer` is what the person at the terminal types when asked to confirm.
final class PairingTerminal: Sendable {
    let process: SpawnedProcess
    let arguments: [String]
    private static let opened = Atomic<Int>(0)

    init(_ home: TestHome, messenger: String, answer: String = "y\n", options: [String] = [], json: Bool = true) throws {
        let n = Self.opened.add(1, ordering: .relaxed).newValue
        let base = "\(home.scratch)/pair-\(n)"
        try answer.write(toFile: base + ".in", atomically: true, encoding: .utf8)
        arguments = ["pair", messenger] + options + (json ? ["--json"] : [])
        process = try SpawnedProcess(
            BuildProducts.relayd, arguments, environment: home.environment(), stdoutPath: base + ".out", stderrPath: base + ".err",
            stdinPath: base + ".in")
        home.adopt(process)
    }

    /// The JSON lines printed so far.
    var events: [JSONValue] {
        process.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    /// The code, once printed (`type: code`).
    func code(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await waitFor("pi-relayd pair printed a code", timeout: timeout) {
            if let exit = process.poll() { throw StackFailure("pi-relayd pair ended (\(exit)) before a code: \(process.stdout) \(process.stderr)") }
            return events.first { $0["type"] == "code" }
        }
    }

    /// Waits for the command to end; its exit and what it printed.
    func finish(timeout: Duration = .seconds(60)) async throws -> CLIResult {
        let started = ContinuousClock.now
        guard let exit = await process.wait(timeout: timeout) else {
            throw StackFailure("pi-relayd \(arguments.joined(separator: " ")) still runs after \(timeout): \(process.stdout) \(process.stderr)")
        }
        return CLIResult(arguments: arguments, exit: exit, stdout: process.stdout, stderr: process.stderr, elapsed: ContinuousClock.now - started)
    }
}
