import Foundation
import PiRelaySDK
import Synchronization
import Testing

/// The product against the fake Telegram Bot API: the real `pi-relayd`, its real formatter,
/// attachments and telegram plugins, the fake Telegram (Tests/Fakes/fake_telegram) and the fake
/// pi. Tests act as Telegram users through the fake's control API and read back what the bot
/// sent, edited and answered.
final class TelegramStack: Sendable {
    /// `<bot id>:<secret>`, as BotFather gives them.
    static let token = "7000000001:STACKtelegramSecretQ9x8c7v6b5n4m3"
    static let alice = (id: "111000111", name: "alice")
    static let bob = (id: "222000222", name: "bob")
    static let mallory = (id: "666000666", name: "mallory")

    let home: TestHome
    let fake: StackFake
    /// The fake is another stack's (one bot token on several machines): that stack stops it.
    let sharesFake: Bool
    let workspace: String
    let agentDir: String
    private let started = Mutex<[Daemon]>([])

    var piLog: String { home.scratch + "/pi-stdin.jsonl" }

    /// The daemons started so far (stopped ones too), oldest first.
    var daemons: [Daemon] { started.withLock { $0 } }

    /// `bot`: another bot than the fake's default one (`id`, `username`), for a room several
    /// machines' bots share; each stack has a fake Telegram of its own.
    /// `sharing`: another stack's fake Telegram, for machines that share one bot token.
    init(_ home: TestHome, bot: (id: String, username: String)? = nil, sharing: StackFake? = nil) async throws {
        self.home = home
        workspace = home.root + "/w"
        agentDir = home.root + "/agent"
        for dir in [workspace, agentDir] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for id in ["formatter", "attachments", "telegram"] { try home.linkBuiltPlugin("pi-relay-" + id, as: id) }
        let identity = bot.map { ["--bot-id", $0.id, "--bot-username", $0.username] } ?? []
        sharesFake = sharing != nil
        if let sharing {
            fake = sharing
        } else {
            fake = try await StackFake.telegram(folder: home.scratch, arguments: ["--token", Self.token] + identity)
        }
    }

    /// Runs `body` with a fresh stack; then the daemons stop cleanly, the fake saw no request
    /// Telegram would refuse or frown on, and the token is in no file of the home.
    /// `gated: false` for a stack inside another's scenario, which holds the gate already.
    static func with<T>(
        gated: Bool = true, bot: (id: String, username: String)? = nil, sharing: StackFake? = nil, _ body: (TelegramStack) async throws -> T
    ) async throws -> T {
        try await TestHome.with(gated: gated) { home in
            let stack = try await TelegramStack(home, bot: bot, sharing: sharing)
            let result: Result<T, any Error>
            do { result = .success(try await body(stack)) } catch { result = .failure(error) }
            for daemon in stack.started.withLock({ $0 }) {
                let (exit, forced) = await daemon.terminate()
                #expect(exit == .exited(0) && !forced, "pi-relayd ended with \(String(describing: exit))\(forced ? " after SIGKILL" : "")")
            }
            if case .success = result, !stack.sharesFake {
                // A control API that cannot answer must fail the test, not pass it unchecked.
                do {
                    let violations = try await stack.fake.violations()
                    #expect(violations.isEmpty, "the fake Telegram saw invalid requests: \(violations)")
                } catch {
                    Issue.record("could not read the fake Telegram's violations: \(error)")
                }
                stack.expectTokenNowhere()
            }
            if !stack.sharesFake { await stack.fake.stop() }
            return try result.get()
        }
    }

    /// config.yaml: quick plugin timings, the fake pi, and the telegram section pointing at the fake.
    /// `allowed`: the telegram section's `allowedUsers` (alice and bob unless given); `section`:
    /// more of the telegram section's keys, one `key: value` a line (a `pollTimeoutSeconds` there
    /// takes the place of the quick 5 s one).
    func yaml(extra: String, sessionLimits: [String] = [], allowed: [String]? = nil, section: [String] = []) -> String {
        let limits = sessionLimits.isEmpty ? "" : "\n  limits:\n" + sessionLimits.map { "    " + $0 }.joined(separator: "\n")
        return """
            \(TestConfig().yaml)logs:
              level: debug
            pi:
              command: \(StackConfig.quoted(StackConfig.fakePi))
              agentDir: \(StackConfig.quoted(agentDir))
              startTimeoutSeconds: 60
            sessions:
              defaultCwd: \(StackConfig.quoted(workspace))\(limits)
            telegram:
              apiBase: \(StackConfig.quoted(fake.apiBase))
              allowedUsers: [\((allowed ?? [Self.alice.id, Self.bob.id]).joined(separator: ", "))]
            \(section.contains { $0.hasPrefix("pollTimeoutSeconds:") } ? "" : "  pollTimeoutSeconds: 5\n")\(section.map { "  " + $0 + "\n" }.joined())
            """ + extra
    }

    /// Starts the daemon and waits until the telegram plugin is polling.
    @discardableResult
    func start(
        extra: String = "", doomed: Bool = false, token: String = TelegramStack.token, polling: Bool = true, environment: [String: String] = [:],
        sessionLimits: [String] = [], allowed: [String]? = nil, section: [String] = []
    ) async throws -> Daemon {
        try home.writeConfig(yaml(extra: extra, sessionLimits: sessionLimits, allowed: allowed, section: section))
        let since = try await fake.cursor
        var env = [
            "TELEGRAM_BOT_TOKEN": token, "FAKE_PI_LOG": piLog, "FAKE_PI_SEED": "7", "PI_RELAY_LOG_LEVEL": "trace",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        ]
        env.merge(environment) { $1 }
        let daemon = try await doomed ? home.startDoomedDaemon(environment: env) : home.startDaemon(environment: env)
        if !doomed { started.withLock { $0.append(daemon) } }
        for plugin in ["formatter", "attachments"] + (polling ? ["telegram"] : []) { try await daemon.waitForRunning(plugin, timeout: .seconds(90)) }
        guard polling else { return daemon }
        guard try await fake.wait("for=poll&since=\(since)", timeout: 60) != nil else {
            throw StackFailure("the telegram plugin is not polling:\n\(home.pluginLog("telegram").suffix(3000))")
        }
        return daemon
    }

    // MARK: What users do

    /// `user` writes to the bot in their private chat. Returns the fake's answer (`message_id`, `update_id`).
    @discardableResult
    func dm(_ text: String, from user: (id: String, name: String) = TelegramStack.alice, extra: JSONValue = [:]) async throws -> JSONValue {
        var body = extra
        body["from"] = ["id": .string(user.id), "first_name": .string(user.name), "username": .string(user.name)]
        body["chat"] = ["id": .string(user.id), "type": "private"]
        if ["photo", "document", "voice", "audio", "video", "video_note", "animation"].allSatisfy({ body[$0] == nil }) {
            body["text"] = .string(text)
        } else if !text.isEmpty {
            body["caption"] = .string(text)
        }
        return try await fake.post("/messages", body)
    }

    /// `user` writes in a group (a supergroup; a forum when `forum`).
    @discardableResult
    func say(
        _ text: String, in chat: String, topic: Int? = nil, forum: Bool = false, from user: (id: String, name: String) = TelegramStack.alice
    )
        async throws -> JSONValue
    {
        var body: JSONValue = [
            "from": ["id": .string(user.id), "first_name": .string(user.name), "username": .string(user.name)],
            "chat": ["id": .string(chat), "type": "supergroup", "title": "team", "is_forum": .bool(forum)], "text": .string(text),
        ]
        if let topic { body["message_thread_id"] = JSONValue(topic) }
        return try await fake.post("/messages", body)
    }

    /// A press on the button labelled `label` of a bot message.
    func press(_ label: String, on message: JSONValue, from user: (id: String, name: String) = TelegramStack.alice) async throws -> JSONValue {
        let buttons = (message["reply_markup"]?["inline_keyboard"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }
        guard let data = buttons.first(where: { $0["text"]?.stringValue == label })?["callback_data"]?.stringValue else {
            throw StackFailure("no button \(label) on \(message)")
        }
        return try await fake.post(
            "/callback",
            [
                "chat_id": message["chat_id"] ?? .null, "message_id": message["message_id"] ?? .null, "data": .string(data),
                "from": ["id": .string(user.id), "first_name": .string(user.name), "username": .string(user.name)],
            ])
    }

    // MARK: What Telegram shows

    func botMessages(_ chat: String) async throws -> [JSONValue] {
        try await fake.get("/messages?chat_id=\(chat)&from=bot&include_deleted=0")["messages"]?.arrayValue ?? []
    }

    /// Waits until `count` bot messages in `chat` contain `text` (visible text or caption).
    @discardableResult
    func waitForBotMessage(in chat: String, containing text: String, count: Int = 1, timeout: Int = 60) async throws -> [JSONValue] {
        let query = "for=message&from=bot&chat_id=\(chat)&contains=\(StackHome.escaped(text))&count=\(count)"
        guard let found = try await fake.wait(query, timeout: timeout)?.arrayValue else {
            let seen = try await botMessages(chat).map { ($0["text"]?.stringValue ?? "") + ($0["caption"]?.stringValue ?? "") }
            throw StackFailure("no bot message containing \(text.debugDescription) in \(chat) within \(timeout) s; the bot's messages there: \(seen)")
        }
        return found
    }

    /// The first bot message in `chat` holding `text` and buttons: a question's card, not the
    /// live view's tool line that names the same title and can come first.
    func waitForCard(in chat: String, containing text: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await waitFor("a card with buttons containing \(text.debugDescription)", timeout: timeout) {
            try await botMessages(chat).first {
                $0["text"]?.stringValue?.contains(text) == true && !($0["reply_markup"]?["inline_keyboard"]?.arrayValue ?? []).isEmpty
            }
        }
    }

    // MARK: The terminal and pi

    func cli(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        try await home.cli.run(arguments, timeout: timeout)
    }

    func json(_ arguments: String...) async throws -> JSONValue {
        let r = try await cli(arguments + ["--json"])
        guard r.status == 0 else { throw StackFailure("\(r)") }
        return try r.json()
    }

    /// What pi was sent as a prompt, steer or follow-up whose message contains `text` (every one
    /// for "").
    func piPrompts(containing text: String) -> [JSONValue] {
        let lines = ((try? String(contentsOfFile: piLog, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { try? JSONValue.parse(String($0)) }.filter {
            ["prompt", "steer", "follow_up"].contains($0["type"]?.stringValue ?? "")
                && (text.isEmpty || $0["message"]?.stringValue?.contains(text) == true)
        }
    }

    /// The token (or a recognisable piece of it) is in no file under the test's folder.
    func expectTokenNowhere(sourceLocation: SourceLocation = #_sourceLocation) {
        for (path, _) in home.files(containing: [Self.token, String(Self.token.suffix(16))]).found {
            Issue.record("the bot token is in \(path)", sourceLocation: sourceLocation)
        }
    }
}
