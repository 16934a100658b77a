import Foundation

/// Runs `pi-relayd ARGS` on a pseudo-terminal, as someone at a terminal would, through
/// util-linux `script` (stdout and stderr are both the terminal; what it showed is returned,
/// escapes and all, with the terminal's CR LF line ends).
struct TerminalCommand {
    let home: TestHome

    static let script = "/usr/bin/script"

    func run(_ arguments: [String], environment extra: [String: String] = [:], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        guard FileManager.default.isExecutableFile(atPath: Self.script) else {
            throw SpawnedProcess.SpawnError(description: "\(Self.script) (util-linux) is needed to run a command on a terminal")
        }
        let command = ([BuildProducts.relayd] + arguments).map(Self.quoted).joined(separator: " ")
        let base = home.scratch + "/tty-\(UUID().uuidString.prefix(8))"
        // Colours are what a terminal gets unless a test says NO_COLOR, whatever the runner's.
        var environment = home.environment(["NO_COLOR": ""].merging(extra) { _, new in new })
        environment["TERM"] = "xterm-256color"
        let started = ContinuousClock.now
        // -e: the command's exit status; -f: flush as it goes; the typescript itself is not wanted.
        let process = try SpawnedProcess(
            Self.script, ["-qfec", command, "/dev/null"], environment: environment, stdoutPath: base + ".out", stderrPath: base + ".err")
        guard let exit = await process.wait(timeout: timeout) else {
            process.signalGroup(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
            throw CLI.HungCommand(arguments: arguments, timeout: timeout)
        }
        return CLIResult(arguments: arguments, exit: exit, stdout: process.stdout, stderr: process.stderr, elapsed: ContinuousClock.now - started)
    }

    func run(_ arguments: String..., environment: [String: String] = [:]) async throws -> CLIResult {
        try await run(arguments, environment: environment)
    }

    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
