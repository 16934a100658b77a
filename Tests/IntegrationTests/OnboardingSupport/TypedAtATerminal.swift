import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `pi-relayd ARGS` on a pseudo-terminal (util-linux `script`), with a person typing `typed`
/// only once `prompt` shows, as a person would: what the terminal showed, for the no-echo check.
enum TypedAtATerminal {
    static func run(
        _ home: TestHome, _ arguments: [String], prompt: String, typed: String, extra: [String: String]
    ) async throws -> (
        shown: String, exit: ProcessExit
    ) {
        let keys = home.scratch + "/keys.fifo"
        let shown = home.scratch + "/terminal.log"
        guard mkfifo(keys, 0o600) == 0 else { throw StackFailure("mkfifo: \(String(cString: strerror(errno)))") }
        // Opened (read-write, so it does not wait for a reader) before `script` starts: its own
        // open of the pipe then finds a writer and does not block the spawn.
        let writer = open(keys, O_RDWR | O_NONBLOCK)
        guard writer >= 0 else { throw StackFailure("open \(keys): \(String(cString: strerror(errno)))") }
        defer { close(writer) }
        let command = ([BuildProducts.relayd] + arguments).joined(separator: " ")
        let process = try SpawnedProcess(
            "/usr/bin/script", ["-q", "-f", "-e", "-c", command, shown], environment: home.environment(extra),
            stdoutPath: home.scratch + "/script.out", stderrPath: home.scratch + "/script.err", stdinPath: keys)
        home.adopt(process)
        try await waitUntil("the prompt shows", timeout: .seconds(60)) {
            ((try? String(contentsOfFile: shown, encoding: .utf8)) ?? "").contains(prompt)
        }
        let bytes = Array((typed + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        guard let exit = await process.wait(timeout: .seconds(60)) else { throw StackFailure("setup on a terminal did not finish") }
        return ((try? String(contentsOfFile: shown, encoding: .utf8)) ?? "", exit)
    }
}
