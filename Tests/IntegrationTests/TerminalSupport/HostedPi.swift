import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// An "interactive pi in a terminal" for the stack tests: the fake pi extension host
/// (Tests/Fakes/pi-extension-host, under Node 24) running the real extension/pi-relayd/index.ts. The
/// test types and answers through the host's stdin (a FIFO) and reads what the person at the
/// terminal would see from its stdout, one JSON line each (the host's README).
final class HostedPi: Sendable {
    let process: SpawnedProcess
    let input: Int32
    let seenPath: String

    /// Node 24 from PyPI, set up by `make node` (`PI_RELAYD_NODE` names another).
    static var node: String {
        if let node = ProcessInfo.processInfo.environment["PI_RELAYD_NODE"], !node.isEmpty { return node }
        return RepoPaths.root + "/.build/node-venv/bin/node24"
    }

    static var host: String { RepoPaths.root + "/Tests/Fakes/pi-extension-host/host.ts" }
    /// `PI_RELAYD_EXTENSION` names another copy: a trap's test is watched failing against the
    /// extension as it was before its fix.
    static var extensionFile: String {
        if let file = ProcessInfo.processInfo.environment["PI_RELAYD_EXTENSION"], !file.isEmpty { return file }
        return RepoPaths.root + "/extension/pi-relayd/index.ts"
    }

    /// `extensions`: what to load instead of the checkout's extension (installed copies, as pi
    /// would discover them). `alsoLoad`: more extension files, loaded after the relay's (another extension's tools
    /// and commands beside ours, as pi loads several). `arguments`: more of the host's options
    /// (its README), e.g. `["--compaction-ms", "3000"]`.
    init(
        home: TestHome, name: String, cwd: String, sessionID: String, piVersion: String = "0.58.3", alsoLoad: [String] = [],
        arguments: [String] = [], extensions: [String]? = nil
    ) throws {
        let fifo = home.scratch + "/\(name).stdin"
        unlink(fifo)
        guard mkfifo(fifo, 0o600) == 0 else { throw SpawnedProcess.SpawnError(description: "mkfifo \(fifo)") }
        // Read and write: opening never blocks, and the host never sees an end of input early.
        input = open(fifo, O_RDWR | O_CLOEXEC)
        seenPath = home.scratch + "/\(name).seen.jsonl"
        var environment = home.environment()
        environment["HOME"] = home.scratch
        process = try SpawnedProcess(
            Self.node,
            [Self.host] + ((extensions ?? [Self.extensionFile]) + alsoLoad).flatMap { ["--extension", $0] }
                + ["--cwd", cwd, "--session-id", sessionID, "--pi-version", piVersion] + arguments,
            environment: environment, stdoutPath: seenPath, stderrPath: home.scratch + "/\(name).stderr", stdinPath: fifo)
        home.adopt(process)
    }

    /// One scripted action at the terminal: `["do": "type", "text": …]`, `["do": "answer", …]`.
    func perform(_ action: JSONValue) {
        var line = action.serializedBytes()
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    func type(_ text: String) { perform(["do": "type", "text": .string(text)]) }

    /// Everything the terminal showed so far.
    var seen: [JSONValue] {
        let text = (try? String(contentsOfFile: seenPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(bytes: Array($0.utf8)) }
    }

    /// Waits until the terminal showed something `match` accepts.
    @discardableResult
    func waitToSee(_ what: String, timeout: Duration = .seconds(30), _ match: @escaping (JSONValue) -> Bool) async throws -> JSONValue {
        try await waitFor("the terminal to show \(what)", timeout: timeout, every: .milliseconds(50)) { self.seen.first(where: match) }
    }

    /// The footer text of the relay.
    var footer: String? {
        seen.last { $0["saw"] == "status" }?["text"]?.stringValue
    }

    func stop() {
        process.signal(SIGKILL)
        close(input)
    }
}
