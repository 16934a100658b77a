import Foundation
import PiRelaySDK
import Synchronization
import Testing

/// One fake Discord and the built pi-relay-discord talking to it, with this test as pi-relayd.
final class Scenario: Sendable {
    static let token = "TEST.scenario-token.Zx9fQ2vL7mK4pR8s"
    static let guild = "1100000000000000001"
    static let general = "1200000000000000001"
    static let ops = "1200000000000000002"
    static let alice = "1400000000000000001"
    static let mallory = "1400000000000000002"
    static let bot = "1300000000000000001"

    let folder = TemporaryFolder()
    let fake: FakeDiscord
    private let plugins = Mutex<[SupervisorDouble]>([])

    var stateDir: String { folder.path + "/state" }

    static var executable: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (me as NSString).deletingLastPathComponent + "/pi-relay-discord"
    }

    init(heartbeatMs: Int = 5000, extraChannels: [String] = []) async throws {
        let folder = self.folder
        fake = try await FakeDiscord(
            folder: folder.path,
            arguments: [
                "--token", Self.token, "--heartbeat-ms", String(heartbeatMs), "--guild", Self.guild,
                "--channel", "\(Self.general):general", "--channel", "\(Self.ops):ops",
                "--user", "\(Self.alice):alice", "--user", "\(Self.mallory):mallory",
            ] + extraChannels.flatMap { ["--channel", $0] })
    }

    var config: JSONValue {
        [
            "apiBase": .string(fake.base), "allowedUsers": [.string(Self.alice)], "guilds": [.string(Self.guild)],
            "channels": [
                ["id": .string(Self.general), "cwd": "/tmp", "name": "general"],
                ["id": .string(Self.ops), "cwd": "/tmp", "name": "ops"],
            ],
        ]
    }

    /// Starts the plugin and completes the handshake. Logs at trace level, so the token check
    /// at the end covers every line the plugin can write.
    func startPlugin(
        name: String = "plugin", config: JSONValue? = nil, token: String = Scenario.token, bindings: JSONValue = [],
        stateDir: String? = nil, responder: @escaping SupervisorDouble.Responder = Scenario.defaultResponder
    ) async throws -> SupervisorDouble {
        var env = [
            "PI_RELAY_PLUGIN=1", "PI_RELAY_PROTOCOL=1", "PATH=/usr/bin:/bin", "PI_RELAY_LOG_LEVEL=trace",
            "DISCORD_BOT_TOKEN=\(token)",
        ]
        if let libraries = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { env.append("LD_LIBRARY_PATH=" + libraries) }
        let plugin = try SupervisorDouble(
            executable: Self.executable, environment: env, stderrPath: folder.path + "/\(name).stderr",
            responder: responder)
        let welcome: JSONValue = [
            "type": "welcome", "protocol": 1, "plugin": "discord", "config": config ?? self.config,
            "stateDir": .string(stateDir ?? self.stateDir), "spoolDir": .string(folder.path + "/spool"),
            "home": .string(folder.path), "sessions": [], "bindings": bindings,
        ]
        plugins.withLock { $0.append(plugin) }
        _ = try await plugin.start(welcome: welcome)
        return plugin
    }

    /// Starts the plugin and waits until it is identified (READY sent) and its commands exist.
    func startReady(
        name: String = "plugin", responder: @escaping SupervisorDouble.Responder = Scenario.defaultResponder
    ) async throws -> SupervisorDouble {
        let cursor = try await fake.get("/cursor")["cursor"]?.intValue ?? 0
        let plugin = try await startPlugin(name: name, responder: responder)
        guard try await fake.wait("for=ready&since=\(cursor)") != nil else {
            throw SupervisorDouble.SupervisorError(description: "no READY; plugin stderr: \(plugin.stderr())")
        }
        _ = try await fake.wait("for=request&method=PUT&path=/guilds/\(Self.guild)/commands&status=200&since=\(cursor)")
        return plugin
    }

    /// Every line the plugins wrote, checked for the bot token (and its "Bot " header form).
    func expectTokenNeverLogged(sourceLocation: SourceLocation = #_sourceLocation) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasSuffix(".stderr") {
            let text = (try? String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)) ?? ""
            #expect(!text.isEmpty, "\(name) is empty", sourceLocation: sourceLocation)
            #expect(!text.contains(Self.token), "\(name) contains the bot token", sourceLocation: sourceLocation)
            #expect(!text.contains(String(Self.token.suffix(12))), "\(name) contains part of the bot token", sourceLocation: sourceLocation)
        }
    }

    func violations() async throws -> [JSONValue] {
        try await fake.get("/violations?severity=error")["violations"]?.arrayValue ?? []
    }

    func stats() async throws -> JSONValue { try await fake.get("/stats") }

    /// A user message (mentioning the bot unless told otherwise).
    @discardableResult
    func say(
        _ text: String, channel: String = Scenario.general, user: String = Scenario.alice, name: String = "alice",
        mention: Bool = true, dm: Bool = false
    ) async throws -> JSONValue {
        var body: JSONValue = ["user_id": .string(user), "username": .string(name), "content": .string(text)]
        if dm {
            body["dm"] = true
        } else {
            body["channel_id"] = .string(channel)
            body["mention_bot"] = .bool(mention)
        }
        return try await fake.post("/messages", body)
    }

    func slash(
        _ name: String, options: JSONValue = [:], channel: String = Scenario.general, user: String = Scenario.alice,
        dm: Bool = false
    ) async throws -> JSONValue {
        var body: JSONValue = ["type": 2, "name": .string(name), "options": options, "user": ["id": .string(user)]]
        if dm { body["dm"] = true } else { body["channel_id"] = .string(channel) }
        return try await fake.post("/interactions", body)
    }

    func click(_ customID: String, message: String, user: String = Scenario.alice, values: [String]? = nil) async throws -> JSONValue {
        var body: JSONValue = ["type": 3, "message_id": .string(message), "custom_id": .string(customID), "user": ["id": .string(user)]]
        if let values { body["values"] = .array(values.map { .string($0) }) }
        return try await fake.post("/interactions", body)
    }

    /// Kills plugins still running (a failed test) and stops the fake.
    func stop() async {
        for plugin in plugins.withLock({ $0 }) where await plugin.exitStatus == nil {
            _ = await plugin.kill9()
        }
        await fake.stop()
    }

    static let defaultResponder: SupervisorDouble.Responder = { method, params in
        switch method {
        case "chat.message": .result(["status": "prompted"])
        default: .result(["text": "ok"])
        }
    }
}
