import FormatterPlugin
import Foundation
import Logging
import PiRelaySDK
import Supervisor
import SupervisorIO

/// The daemon run inside the test process, with the test's messenger and the real formatter
/// linked in (`InProcessPlugin`): chat and command tests without a process per plugin. Only pi
/// (the fake, when a test starts a session) is a process of its own.
struct LinkedRelay {
    static let messenger = "deskchat"
    static let user = "u1"
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    let scratch: ScratchFolder
    let home: Home
    var workspace: String { scratch.path + "/w" }
    var messengerState: String { home.pluginStateDir(Self.messenger) }

    /// Runs `body` against a running daemon, and stops it after. `config`: more of config.yaml
    /// (top-level lines); `messengerKeys`: more keys of the messenger's section; `federation`: a
    /// linked federation plugin too (`LinkedFederation`); `piEnv`: the fake pi's settings.
    /// `paired`: users paired before the start, besides the configured `user`.
    static func with(
        config more: [String] = [], messengerKeys: [String] = [], federation: Bool = false, piEnv: [String: String] = [:],
        paired: [String] = [], _ body: (LinkedRelay) async throws -> Void
    ) async throws {
        let scratch = try ScratchFolder()
        let relay = LinkedRelay(scratch: scratch, home: Home(root: scratch.path + "/h"))
        try FileManager.default.createDirectory(atPath: relay.workspace, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: relay.home.root, withIntermediateDirectories: true)
        if !paired.isEmpty {
            try FileManager.default.createDirectory(atPath: relay.home.stateDir, withIntermediateDirectories: true)
            try PairedUsers(
                path: PairedUsers.path(stateDir: relay.home.stateDir),
                users: paired.map { PairedUser(messenger: messenger, id: $0, name: $0, pairedAt: "2026-11-01T08:00:00.000Z") }
            ).save()
        }
        let config = """
            pi:
              command: \(repo)/Tests/Fakes/fake-pi/pi
              agentDir: \(scratch.path)/agent
              startTimeoutSeconds: 60
            \(piEnv.isEmpty ? "" : "  env:\n" + piEnv.sorted { $0.key < $1.key }.map { "    \($0.key): \"\($0.value)\"\n" }.joined())\
            \(messenger):
              allowedUsers: ["\(user)"]
            \(messengerKeys.map { "  " + $0 + "\n" }.joined())\(more.map { $0 + "\n" }.joined())
            """
        try config.write(toFile: relay.home.root + "/config.yaml", atomically: true, encoding: .utf8)
        var linked = [
            InProcessPlugin(name: messenger) { input, output in
                await PluginRuntime.serve(LinkedMessenger.self, input: input, output: output, logger: Logger(label: messenger))
            },
            InProcessPlugin(name: "formatter") { input, output in
                await PluginRuntime.serve(RelayFormatter.self, input: input, output: output, logger: Logger(label: "formatter"))
            },
        ]
        if federation {
            linked.append(
                InProcessPlugin(name: "federation") { input, output in
                    await PluginRuntime.serve(LinkedFederation.self, input: input, output: output, logger: Logger(label: "federation"))
                })
        }
        let daemon = Daemon(home: relay.home, foreground: false, linked: linked)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await daemon.run() }
            do {
                try await relay.waitForWelcome(of: relay.messengerState, "the linked messenger")
                if federation { try await relay.waitForWelcome(of: relay.home.pluginStateDir("federation"), "the linked federation plugin") }
                try await body(relay)
            } catch {
                try? await relay.stop()
                try? await group.waitForAll()
                throw error
            }
            try await relay.stop()
            try await group.waitForAll()
        }
    }

    /// Until the linked plugin with state folder `stateDir` has had its welcome. A test that
    /// speaks for a plugin needs its connection; under the thread sanitizer the federation plugin
    /// may be welcomed well after the messenger.
    func waitForWelcome(of stateDir: String, _ what: String) async throws {
        for _ in 0..<1500 {
            if await LinkedChats.shared.connection(stateDir) != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RemoteError(code: .timeout, message: "\(what) never started")
    }

    /// A DM from `user`, as the messenger hands it over; in `channel` (and `thread`) when given.
    /// `dm`: whether `channel` is a direct conversation all the same (a web dashboard's page).
    func say(
        _ text: String, from user: String = Self.user, channel: String? = nil, thread: String? = nil, dm: Bool? = nil
    ) async throws -> ChatMessageResult {
        guard let connection = await LinkedChats.shared.connection(messengerState) else {
            throw RemoteError(code: .unavailable, message: "no linked messenger")
        }
        let chat = Chat(messenger: Self.messenger, channel: channel ?? "dm-" + user, thread: thread, user: user, dm: dm ?? (channel == nil))
        return try await connection.request(.chatMessage, ChatMessageParams(chat: chat, messageID: UUID().uuidString, text: text))
    }

    /// What the messenger heard, once something it heard contains `text`.
    func waitToHear(_ text: String, timeout: Duration = .seconds(60)) async throws -> [LinkedChats.Heard] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let heard = await LinkedChats.shared.all(messengerState)
            if heard.contains(where: { $0.params.serialized().contains(text) }) { return heard }
            try await Task.sleep(for: .milliseconds(20))
        }
        let heard = await LinkedChats.shared.all(messengerState).map { "\($0.method) \($0.params.serialized().prefix(200))" }
        throw RemoteError(code: .timeout, message: "the messenger never heard \(text.debugDescription); it heard: \(heard)")
    }

    /// `pi-relayd stop` through the control socket.
    func stop() async throws {
        _ = try await control(.stop)
    }

    /// A control method through the daemon's socket, off the cooperative pool (the client blocks).
    func control(_ method: ControlMethod, _ params: JSONValue = [:]) async throws -> JSONValue {
        let client = ControlClient(path: home.socketPath, timeout: .seconds(30))
        return try await withCheckedThrowingContinuation { (done: CheckedContinuation<JSONValue, any Error>) in
            Thread.detachNewThread {
                do {
                    done.resume(returning: try client.call(method, params))
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }

    /// Until the messenger's current connection is not `old` (a new instance had its welcome).
    func waitForNewMessenger(replacing old: PluginConnection?) async throws {
        for _ in 0..<500 {
            if let now = await LinkedChats.shared.connection(messengerState), now !== old { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RemoteError(code: .timeout, message: "the linked messenger did not come back")
    }
}
