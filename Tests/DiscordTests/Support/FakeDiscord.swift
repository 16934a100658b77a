import Foundation
import PiRelaySDK

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fake Discord (Tests/Fakes/fake_discord) as a child process, and its control API.
final class FakeDiscord: Sendable {
    let process: ChildProcess
    let port: Int
    let base: String
    let transcriptPath: String

    struct ControlError: Error, CustomStringConvertible {
        let description: String
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fakes/fake_discord/fake_discord.py").path
    }

    init(folder: String, arguments: [String]) async throws {
        let portFile = folder + "/fake-port.json"
        transcriptPath = folder + "/transcript.txt"
        process = try ChildProcess(
            path: "/usr/bin/python3",
            arguments: [Self.script, "--port", "0", "--control-port-file", portFile, "--transcript", transcriptPath] + arguments,
            environment: ["PATH=/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE=1"],
            stderrPath: folder + "/fake.log", pipes: false)
        let deadline = ContinuousClock.now + .seconds(30)
        var found: JSONValue?
        while ContinuousClock.now < deadline {
            if let data = FileManager.default.contents(atPath: portFile), let v = try? JSONValue.parse(bytes: [UInt8](data)) {
                found = v
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let found, let port = found["port"]?.intValue, let base = found["base"]?.stringValue else {
            process.signal(SIGKILL)
            throw ControlError(description: "the fake Discord did not start; see \(folder)/fake.log")
        }
        self.port = port
        self.base = base
    }

    func stop() async {
        process.signal(SIGTERM)
        if await process.exitStatus(within: .seconds(5)) == nil {
            process.signal(SIGKILL)
            _ = await process.exitStatus()
        }
    }

    func get(_ path: String, timeout: TimeInterval = 30) async throws -> JSONValue {
        try await call("GET", path, body: nil, timeout: timeout)
    }

    @discardableResult
    func post(_ path: String, _ body: JSONValue = [:]) async throws -> JSONValue {
        try await call("POST", path, body: body, timeout: 30)
    }

    /// Long-polls `/_control/wait`; nil when the condition did not hold in time (408).
    func wait(_ query: String, timeout: Int = 15) async throws -> JSONValue? {
        let v = try await call("GET", "/wait?\(query)&timeout=\(timeout)", body: nil, timeout: TimeInterval(timeout + 10), allow408: true)
        return v["ok"] == true ? v["result"] : nil
    }

    func transcript() -> String {
        (try? String(contentsOfFile: transcriptPath, encoding: .utf8)) ?? ""
    }

    func messages(channel: String, author: String = "bot") async throws -> [JSONValue] {
        try await get("/messages?channel_id=\(channel)&author=\(author)")["messages"]?.arrayValue ?? []
    }

    private func call(_ method: String, _ path: String, body: JSONValue?, timeout: TimeInterval, allow408: Bool = false) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/_control\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let body {
            request.httpBody = Data(body.serializedBytes())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 || (allow408 && status == 408) else {
            throw ControlError(description: "\(method) /_control\(path): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONValue.parse(bytes: [UInt8](data))
    }
}
