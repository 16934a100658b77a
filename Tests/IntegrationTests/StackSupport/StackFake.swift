import Foundation
import PiRelaySDK

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A fake messenger service (Tests/Fakes/fake_discord, Tests/Fakes/fake_telegram) as a child of
/// the test, and its control API: what users do (messages, slash commands, clicks) goes in
/// through it, and what the bot did is read back from it. It runs without PI_RELAYD_HOME in its
/// environment, so the home's clean-up check ("nothing of this home left running") is about the
/// daemon's children only; `stop()` ends it.
final class StackFake: Sendable {
    let process: SpawnedProcess
    let port: Int
    /// The REST base the plugin is pointed at (`discord.apiBase`).
    let apiBase: String
    let transcriptPath: String
    let logPath: String

    let name: String

    /// The fake Discord.
    static func discord(folder: String, arguments: [String]) async throws -> StackFake {
        try await StackFake(
            name: "discord", script: RepoPaths.root + "/Tests/Fakes/fake_discord/fake_discord.py", folder: folder, arguments: arguments)
    }

    /// The fake Telegram Bot API.
    static func telegram(folder: String, arguments: [String]) async throws -> StackFake {
        try await StackFake(
            name: "telegram", script: RepoPaths.root + "/Tests/Fakes/fake_telegram/fake_telegram.py", folder: folder, arguments: arguments)
    }

    /// The fake Slack (Web API and Socket Mode).
    static func slack(folder: String, arguments: [String]) async throws -> StackFake {
        try await StackFake(
            name: "slack", script: RepoPaths.root + "/Tests/Fakes/fake_slack/fake_slack.py", folder: folder, arguments: arguments)
    }

    init(name: String, script: String, folder: String, arguments: [String]) async throws {
        self.name = name
        let portFile = folder + "/fake-\(name)-port.json"
        transcriptPath = folder + "/fake-\(name)-transcript.txt"
        logPath = folder + "/fake-\(name).log"
        let environment = ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "HOME": folder]
        process = try SpawnedProcess(
            "/usr/bin/python3",
            [script, "--port", "0", "--control-port-file", portFile, "--transcript", transcriptPath]
                + arguments,
            environment: environment, stdoutPath: logPath, stderrPath: logPath)
        // Loading the OpenAPI spec takes a few seconds on a busy machine.
        var found: JSONValue?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, found == nil {
            if let data = FileManager.default.contents(atPath: portFile) { found = try? JSONValue.parse(bytes: [UInt8](data)) }
            if found == nil {
                if let exit = process.poll() { throw StackFailure("the fake \(name) exited (\(exit)): \(process.stderr)") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let found, let port = found["port"]?.intValue, let base = found["base"]?.stringValue else {
            process.signalGroup(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
            throw StackFailure("the fake \(name) did not start within 60 s: \(process.stderr)")
        }
        self.port = port
        apiBase = base
    }

    func stop() async {
        process.signalGroup(SIGTERM)
        if await process.wait(timeout: .seconds(5)) == nil {
            process.signalGroup(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
        }
    }

    // MARK: Control API

    func get(_ path: String, timeout: TimeInterval = 30) async throws -> JSONValue {
        try await call("GET", path, body: nil, timeout: timeout)
    }

    @discardableResult
    func post(_ path: String, _ body: JSONValue = [:]) async throws -> JSONValue {
        try await call("POST", path, body: body, timeout: 30)
    }

    /// Long-polls `/_control/wait`; nil when the condition did not come true in `timeout` seconds.
    func wait(_ query: String, timeout: Int = 30) async throws -> JSONValue? {
        let v = try await call(
            "GET", "/wait?\(query)&timeout=\(timeout)", body: nil, timeout: TimeInterval(timeout + 30),
            allow408: true)
        return v["ok"] == true ? v["result"] : nil
    }

    var cursor: Int {
        get async throws { try await get("/cursor")["cursor"]?.intValue ?? 0 }
    }

    /// Messages in a channel (current content, after edits; deleted ones left out), oldest first.
    func messages(channel: String, author: String = "bot") async throws -> [JSONValue] {
        try await get("/messages?channel_id=\(channel)&author=\(author)")["messages"]?.arrayValue ?? []
    }

    func message(_ id: String) async throws -> JSONValue {
        try await get("/messages/\(id)")
    }

    func interaction(_ id: String) async throws -> JSONValue {
        try await get("/interactions/\(id)")
    }

    /// The human-readable transcript of everything so far.
    func transcriptText() async throws -> String {
        let (data, status) = try await raw("GET", "/transcript.txt", body: nil, timeout: 30)
        guard status == 200 else { throw StackFailure("GET /_control/transcript.txt: HTTP \(status)") }
        return String(decoding: data, as: UTF8.self)
    }

    func violations() async throws -> [JSONValue] {
        try await get("/violations?severity=error")["violations"]?.arrayValue ?? []
    }

    private func call(_ method: String, _ path: String, body: JSONValue?, timeout: TimeInterval, allow408: Bool = false) async throws -> JSONValue {
        let (data, status) = try await raw(method, path, body: body, timeout: timeout)
        guard status == 200 || (allow408 && status == 408) else {
            throw StackFailure("\(method) /_control\(path): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONValue.parse(bytes: [UInt8](data))
    }

    private func raw(_ method: String, _ path: String, body: JSONValue?, timeout: TimeInterval) async throws -> (Data, Int) {
        guard let url = URL(string: "http://127.0.0.1:\(port)/_control\(path)") else { throw StackFailure("bad control path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let body {
            request.httpBody = Data(body.serializedBytes())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}
