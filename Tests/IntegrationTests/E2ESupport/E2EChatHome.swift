import Foundation
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A test home set up for chat end to end: the real formatter and attachments plugins (the built
/// executables, linked into plugins/ under their ids), the fake messenger, and the fake pi as
/// `pi.command`. Tests act as a user would, from the terminal (`pi-relayd ...`) and from the chat
/// (requests the fake messenger sends), then read what the messenger received and what pi was sent.
final class E2EChatHome: Sendable {
    let home: TestHome
    /// The session's working directory.
    let workspace: String
    let agentDir: String

    static let channel = "c1"
    static let user = "42"

    /// What the fake messenger received (FAKE_MESSENGER_LOG).
    var messengerLog: String { home.scratch + "/messenger.jsonl" }
    /// Every line pi read on its stdin (FAKE_PI_LOG).
    var piLog: String { home.scratch + "/pi-stdin.jsonl" }

    init(_ home: TestHome) throws {
        self.home = home
        workspace = home.root + "/w"
        agentDir = home.root + "/agent"
        for dir in [workspace, agentDir] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        for (id, product) in [("formatter", "pi-relay-formatter"), ("attachments", "pi-relay-attachments")] {
            try home.linkBuiltPlugin(product, as: id)
        }
        // A private 0755 copy: the supervisor refuses plugins writable by group or others,
        // whatever the checkout's umask made of the original.
        let copy = home.scratch + "/fake-messenger"
        try FileManager.default.copyItem(atPath: RepoPaths.root + "/Tests/Fakes/messenger/fake-messenger", toPath: copy)
        guard chmod(copy, 0o755) == 0 else { throw E2EFailure("chmod \(copy) failed") }
        try FileManager.default.createSymbolicLink(atPath: home.pluginsDir + "/fake-messenger", withDestinationPath: copy)
    }

    /// Runs `body` with a fresh chat home (see `TestHome.with` for the clean-up and diagnostics).
    static func with<T>(_ body: (E2EChatHome) async throws -> T) async throws -> T {
        try await TestHome.with { home in try await body(try E2EChatHome(home)) }
    }

    func config(formatter: [String] = [], attachments: [String] = []) -> E2EConfig {
        E2EConfig(agentDir: agentDir, formatter: formatter, attachments: attachments)
    }

    /// Writes the config, starts the daemon and waits until the plugins it runs have said hello.
    func start(_ config: E2EConfig? = nil, environment: [String: String] = [:]) async throws -> Daemon {
        let config = config ?? self.config()
        try home.writeConfig(config.yaml)
        var env = ["FAKE_MESSENGER_LOG": messengerLog, "FAKE_PI_LOG": piLog, "FAKE_PI_SEED": "7"]
        env.merge(environment) { _, new in new }
        let daemon = try await home.startDaemon(environment: env)
        for plugin in ["fake-messenger", "formatter", "attachments"] where !config.plugins.disabled.contains(plugin) {
            try await daemon.waitForRunning(plugin, timeout: .seconds(60))
        }
        return daemon
    }

    // MARK: The terminal

    /// `pi-relayd ARGS`, failing unless it exits 0.
    @discardableResult
    func run(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        let r = try await home.cli.run(arguments, timeout: timeout)
        guard r.status == 0 else { throw E2EFailure("\(r)") }
        return r
    }

    /// Starts a session in the workspace and binds the fake messenger's channel to it.
    func newBoundSession(_ name: String, channel: String = channel) async throws -> String {
        let made = try await run(["new", "--cwd", workspace, "--name", name, "--json"])
        guard let id = try made.json()["id"]?.stringValue else { throw E2EFailure("no session id: \(made)") }
        let reply = try await inject("chat.command", ["chat": Self.chat(channel), "name": "use", "args": ["session": .string(name)]])
        guard reply["text"]?.stringValue?.hasPrefix("Watching") == true else { throw E2EFailure("/use failed: \(reply)") }
        return id
    }

    // MARK: The chat

    static func chat(_ channel: String = channel) -> JSONValue {
        ["channel": .string(channel), "user": .string(user), "userName": "tester", "dm": false, "mentioned": true]
    }

    /// Makes the fake messenger send a chat request; returns the supervisor's result.
    func inject(_ method: String, _ params: JSONValue, timeout: Duration = .seconds(90)) async throws -> JSONValue {
        let request: JSONValue = ["method": .string(method), "params": params]
        let ms = Int(timeout.components.seconds) * 1000
        let r = try await run(
            ["plugin", "call", "fake-messenger", "inject", request.serialized(), "--timeout-ms", "\(ms)"],
            timeout: timeout + .seconds(15))
        let answer = try r.json()
        guard let result = answer["result"] else { throw E2EFailure("\(method) failed: \(answer)") }
        return result
    }

    /// A chat message from the allowed user in `channel`.
    func say(_ text: String, attachments: [JSONValue] = [], channel: String = channel) async throws -> JSONValue {
        try await inject(
            "chat.message",
            [
                "chat": Self.chat(channel), "messageId": .string(UUID().uuidString),
                "text": .string(text), "attachments": .array(attachments),
            ])
    }

    // MARK: What the messenger received

    func messengerEvents() -> [JSONValue] {
        Self.jsonLines(messengerLog)
    }

    /// chat.post deliveries (params), first deliveries only, optionally of one kind.
    func posts(_ kind: String? = nil) -> [JSONValue] {
        messengerEvents().filter {
            $0["event"] == "deliver" && $0["method"] == "chat.post" && $0["duplicate"] == false
                && (kind == nil || $0["params"]?["kind"]?.stringValue == kind)
        }.compactMap { $0["params"] }
    }

    /// chat.live notifies (params) for one run, in arrival order.
    func lives(runID: String) -> [JSONValue] {
        messengerEvents().filter { $0["event"] == "notify" && $0["method"] == "chat.live" && $0["params"]?["runId"]?.stringValue == runID }
            .compactMap { $0["params"] }
    }

    /// Waits for the `n`th final answer posted to the chat (1-based) and returns it.
    func waitForFinal(_ n: Int, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        // Typed: JSONValue is nil-expressible, so a bare `nil` here would be `.null`, a value.
        try await waitFor("final answer #\(n) reaches the messenger", timeout: timeout) { () -> JSONValue? in
            let finals = posts("final")
            return finals.count >= n ? finals[n - 1] : Optional<JSONValue>.none
        }
    }

    // MARK: What pi was sent

    /// pi's stdin records of one command type (`prompt`, `follow_up`, ...).
    func piCommands(_ type: String) -> [JSONValue] {
        Self.jsonLines(piLog).filter { $0["type"]?.stringValue == type }
    }

    /// Waits until pi has been sent `n` prompts and returns them.
    func waitForPrompts(_ n: Int, timeout: Duration = .seconds(60)) async throws -> [JSONValue] {
        try await waitFor("pi received \(n) prompt(s)", timeout: timeout) {
            let prompts = piCommands("prompt")
            return prompts.count >= n ? prompts : nil
        }
    }

    static func jsonLines(_ path: String) -> [JSONValue] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    // MARK: Files

    func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// Runs the fake pi directly (not through the daemon) with `prompt` on its stdin and returns
    /// the path of its recorded stdout, a pi event stream as `pi-relayd render` reads it.
    func recordPiStream(prompt: String, name: String) async throws -> String {
        let input = home.scratch + "/\(name)-stdin.jsonl"
        let output = home.scratch + "/\(name).jsonl"
        let command: JSONValue = ["id": "p1", "type": "prompt", "message": .string(prompt)]
        try writeFile(input, Array((command.serialized() + "\n").utf8))
        // The harness's spawner gives children /dev/null as stdin; a shell redirect feeds the prompt.
        let process = try SpawnedProcess(
            "/bin/sh", ["-c", "exec \"$0\" --mode rpc --no-session < \"$1\"", E2EConfig.fakePi, input],
            environment: home.environment(["PI_CODING_AGENT_DIR": agentDir, "FAKE_PI_SEED": "7"]),
            stdoutPath: output, stderrPath: home.scratch + "/\(name).err")
        guard let exit = await process.wait(timeout: .seconds(90)) else {
            process.signalGroup(SIGKILL)
            throw E2EFailure("the fake pi did not finish \(prompt)")
        }
        guard exit == .exited(0) else { throw E2EFailure("the fake pi ended with \(exit): \(process.stderr)") }
        return output
    }
}
