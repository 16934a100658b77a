import Foundation
import PiRelaySDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A test home whose daemon runs sessions on the fake pi, driven through the `pi-relayd` CLI as a
/// person would drive them.
final class SessionHome: Sendable {
    let home: TestHome

    /// FAKE_PI_LOG: every line the daemon wrote to any pi's stdin.
    var piLog: String { home.scratch + "/pi-stdin.jsonl" }
    var agentDir: String { home.scratch + "/agent" }
    /// The working directory sessions are started in unless a test names another.
    var project: String { home.scratch + "/project" }
    var sessionsFile: String { home.path + "/state/sessions.json" }

    init(home: TestHome, config: SessionConfig) throws {
        self.home = home
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try configure(config)
    }

    /// Rewrites config.yaml; the daemon reads it when it starts.
    func configure(_ config: SessionConfig) throws {
        try home.writeConfig(config.yaml(piLog: piLog, agentDir: agentDir))
    }

    /// Writes an executable shell script into the scratch folder and returns its path: a
    /// stand-in `pi.command` that wraps the fake (slow to start, with a stubborn helper...).
    func script(_ name: String, _ body: String) throws -> String {
        let path = home.scratch + "/" + name
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        guard chmod(path, 0o755) == 0 else { throw SpawnedProcess.SpawnError(description: "chmod \(path)") }
        return path
    }

    /// A fresh home for `config`; the daemon is started by the test (`start()`), so tests about
    /// restarts can start it more than once.
    static func with<T>(_ config: SessionConfig = SessionConfig(), _ body: (SessionHome) async throws -> T) async throws -> T {
        try await TestHome.with { home in try await body(SessionHome(home: home, config: config)) }
    }

    @discardableResult
    func start() async throws -> Daemon { try await home.startDaemon() }

    // MARK: Commands

    func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> CLIResult {
        try await home.cli.run(arguments, timeout: timeout)
    }

    func run(_ arguments: String..., timeout: Duration = .seconds(60)) async throws -> CLIResult {
        try await run(arguments, timeout: timeout)
    }

    /// `pi-relayd ARGS --json`, which must succeed; its answer.
    func json(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let result = try await run(arguments + ["--json"], timeout: timeout)
        guard result.status == 0 else { throw SessionCommandFailure(result: result) }
        return try result.json()
    }

    func json(_ arguments: String..., timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await json(arguments, timeout: timeout)
    }

    /// `pi-relayd ARGS`, which must succeed; what it printed.
    func plain(_ arguments: String..., timeout: Duration = .seconds(60)) async throws -> String {
        let result = try await run(arguments, timeout: timeout)
        guard result.status == 0 else { throw SessionCommandFailure(result: result) }
        return result.stdout
    }

    /// Starts a session and returns its id.
    func new(name: String? = nil, cwd: String? = nil) async throws -> String {
        var arguments = ["new", "--cwd", cwd ?? project]
        if let name { arguments += ["--name", name] }
        let created = try await json(arguments)
        return try #require(created["id"]?.stringValue, "\(created)")
    }

    // MARK: Observing sessions

    func sessions() async throws -> [JSONValue] {
        try await json("sessions").arrayValue ?? []
    }

    func summary(_ id: String) async throws -> JSONValue? {
        try await sessions().first { $0["id"]?.stringValue == id }
    }

    /// Waits until `sessions` shows the session in `state`; returns its summary.
    @discardableResult
    func waitForState(_ id: String, _ state: String, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        var last: JSONValue?
        do {
            return try await waitFor("session \(id) is \(state)", timeout: timeout) {
                last = try await summary(id)
                return last?["state"]?.stringValue == state ? last : nil
            }
        } catch let timeout as WaitTimeout {
            throw WaitTimeout(
                what: timeout.what, timeout: timeout.timeout, lastError: timeout.lastError,
                lastSeen: last?.serialized() ?? "not listed")
        }
    }

    func history(_ id: String, _ options: String...) async throws -> [JSONValue] {
        try await json(["history", id, "--limit", "100000"] + options).arrayValue ?? []
    }

    func finishedRuns(_ id: String) async throws -> Int {
        try await history(id, "--type", "run_finished").count
    }

    /// The runs that finished since `time` (by the history's clock, which is this machine's);
    /// unlike a count, this holds when the ring has dropped older runs.
    func runsFinished(_ id: String, since time: Date) async throws -> [JSONValue] {
        // One millisecond later: the printed time is cut to milliseconds.
        try await history(id, "--type", "run_finished", "--since", Self.iso(time.addingTimeInterval(0.001)))
    }

    /// Sends a prompt and waits until its run has finished and the session is idle again.
    @discardableResult
    func prompt(_ id: String, _ text: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let before = Date()
        let sent = try await json("send", id, text)
        try await waitUntil("the run of \(text.debugDescription) finished", timeout: timeout) {
            try await !runsFinished(id, since: before).isEmpty
        }
        try await waitForState(id, "idle")
        return sent
    }

    /// The agent's last answer, as `last --json` gives it.
    func last(_ id: String) async throws -> String? {
        try await json("last", id)["text"]?.stringValue
    }

    // MARK: What pi was sent

    /// FAKE_PI_LOG as JSON records, oldest first.
    func piInput(_ type: String? = nil) -> [JSONValue] {
        let text = (try? String(contentsOfFile: piLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            .filter { type == nil || $0["type"]?.stringValue == type }
    }

    /// A time as the daemon prints it (ISO 8601 with milliseconds).
    static func date(_ value: JSONValue?) -> Date? {
        guard let text = value?.stringValue else { return nil }
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return format.date(from: text)
    }

    static func iso(_ date: Date) -> String {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return format.string(from: date)
    }

    /// The command line of a running process, from /proc.
    static func commandLine(_ pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Processes of this home other than daemons: pi children and whatever they started.
    func children(besides daemons: [Daemon]) -> [Int32] {
        let skip = Set(daemons.map(\.pid))
        return ProcessTable.pids(withEnvironment: "PI_RELAYD_HOME", value: home.path).filter { !skip.contains($0) }
    }
}
