import Foundation
import PiRelaySDK
import Synchronization
import Testing

/// The product against the fake Slack: the real `pi-relayd`, its real formatter, attachments
/// and slack plugins, the fake Slack (Tests/Fakes/fake_slack) and the fake pi. Tests act as
/// Slack users through the fake's control API and read back what the bot posted, edited,
/// reacted and acknowledged.
final class SlackStack: Sendable {
    static let botToken = "xoxb-4242-1717-STACKslackBotSecretQ9x8c7v6"
    static let appToken = "xapp-1-A0FAKEAPP-5151-STACKslackAppSecretZ1y2"
    static let alice = (id: "UALICE01", name: "alice")
    static let bob = (id: "UBOB0002", name: "bob")
    static let mallory = (id: "UMALLORY", name: "mallory")
    static let bot = "U0BOTUSER"

    let home: TestHome
    let fake: StackFake
    let workspace: String
    let agentDir: String
    /// Another stack's fake Slack: this stack is another machine of one app (a federation).
    let sharesFake: Bool
    private let started = Mutex<[Daemon]>([])

    var piLog: String { home.scratch + "/pi-stdin.jsonl" }

    /// `sharing`: another stack's fake Slack, for machines that share one app.
    init(_ home: TestHome, sharing: StackFake? = nil) async throws {
        self.home = home
        workspace = home.root + "/w"
        agentDir = home.root + "/agent"
        for dir in [workspace, agentDir] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for id in ["formatter", "attachments", "slack"] { try home.linkBuiltPlugin("pi-relay-" + id, as: id) }
        sharesFake = sharing != nil
        if let sharing {
            fake = sharing
        } else {
            fake = try await StackFake.slack(folder: home.scratch, arguments: ["--bot-token", Self.botToken, "--app-token", Self.appToken])
        }
    }

    /// Runs `body` with a fresh stack; then the daemons stop cleanly, the fake saw no request
    /// Slack would refuse, and neither token is in any file of the home. A stack sharing another's
    /// fake leaves those checks to it, and so does a scenario that checks them itself
    /// (`checked: false`). `gated: false` for a stack inside another's scenario.
    static func with<T>(
        gated: Bool = true, sharing: StackFake? = nil, checked: Bool = true, _ body: (SlackStack) async throws -> T
    ) async throws -> T {
        try await TestHome.with(gated: gated) { home in
            let stack = try await SlackStack(home, sharing: sharing)
            let result: Result<T, any Error>
            do { result = .success(try await body(stack)) } catch { result = .failure(error) }
            for daemon in stack.started.withLock({ $0 }) {
                let (exit, forced) = await daemon.terminate()
                #expect(exit == .exited(0) && !forced, "pi-relayd ended with \(String(describing: exit))\(forced ? " after SIGKILL" : "")")
            }
            if case .success = result, !stack.sharesFake, checked {
                // A control API that cannot answer must fail the test, not pass it unchecked.
                do {
                    let violations = try await stack.fake.violations()
                    #expect(violations.isEmpty, "the fake Slack saw invalid requests: \(violations)")
                } catch {
                    Issue.record("could not read the fake Slack's violations: \(error)")
                }
                stack.expectTokensNowhere()
            }
            if !stack.sharesFake { await stack.fake.stop() }
            return try result.get()
        }
    }

    /// `slack` holds more lines of the slack section, each indented by two spaces.
    func yaml(extra: String, slack: String = "") -> String {
        """
        \(TestConfig().yaml)logs:
          level: debug
        pi:
          command: \(StackConfig.quoted(StackConfig.fakePi))
          agentDir: \(StackConfig.quoted(agentDir))
          startTimeoutSeconds: 60
        sessions:
          defaultCwd: \(StackConfig.quoted(workspace))
        slack:
          apiBase: \(StackConfig.quoted(fake.apiBase))
          allowedUsers: [\(Self.alice.id), \(Self.bob.id)]

        """ + slack + extra
    }

    /// Starts the daemon and waits until the slack plugin's socket said hello. `doomed`: killed by
    /// the test, so its exit is not checked.
    @discardableResult
    func start(
        extra: String = "", slack: String = "", botToken: String = SlackStack.botToken, connected: Bool = true, doomed: Bool = false,
        environment: [String: String] = [:]
    ) async throws -> Daemon {
        try home.writeConfig(yaml(extra: extra, slack: slack))
        let since = try await fake.cursor
        var env = [
            "SLACK_BOT_TOKEN": botToken, "SLACK_APP_TOKEN": Self.appToken, "FAKE_PI_LOG": piLog, "FAKE_PI_SEED": "7",
            "PI_RELAY_LOG_LEVEL": "trace", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        ]
        env.merge(environment) { $1 }
        let daemon = try await doomed ? home.startDoomedDaemon(environment: env) : home.startDaemon(environment: env)
        if !doomed { started.withLock { $0.append(daemon) } }
        for plugin in ["formatter", "attachments"] { try await daemon.waitForRunning(plugin, timeout: .seconds(90)) }
        guard connected else { return daemon }
        try await daemon.waitForRunning("slack", timeout: .seconds(90))
        guard try await fake.wait("for=hello&since=\(since)", timeout: 60) != nil else {
            throw StackFailure("the slack plugin did not connect:\n\(home.pluginLog("slack").suffix(3000))")
        }
        return daemon
    }

    // MARK: What users do

    /// `user` writes to the bot in their DM (or in `channel`). Returns the fake's answer (`ts`, `channel`, `event_ids`).
    @discardableResult
    func say(
        _ text: String, from user: (id: String, name: String) = SlackStack.alice, in channel: String? = nil, thread: String? = nil,
        extra: JSONValue = [:]
    ) async throws -> JSONValue {
        var body = extra
        body["user"] = .string(user.id)
        body["name"] = .string(user.name)
        body["text"] = .string(text)
        if let channel { body["channel"] = .string(channel) }
        if let thread { body["thread_ts"] = .string(thread) }
        return try await fake.post("/messages", body)
    }

    /// `/pi TEXT` typed by `user` in their DM (or in `channel`).
    @discardableResult
    func command(
        _ text: String, from user: (id: String, name: String) = SlackStack.alice, in channel: String? = nil, botNotMember: Bool = false
    ) async throws -> JSONValue {
        var body: JSONValue = ["user": .string(user.id), "name": .string(user.name), "text": .string(text)]
        if let channel { body["channel"] = .string(channel) }
        if botNotMember { body["bot_not_member"] = true }
        return try await fake.post("/command", body)
    }

    /// A click on the button labelled `label` (or the select's option `option`) of a bot message.
    @discardableResult
    func click(
        _ label: String? = nil, option: String? = nil, on message: JSONValue, from user: (id: String, name: String) = SlackStack.alice
    )
        async throws -> JSONValue
    {
        var body: JSONValue = [
            "user": .string(user.id), "name": .string(user.name), "channel": message["channel"] ?? .null, "ts": message["ts"] ?? .null,
        ]
        if let label { body["label"] = .string(label) }
        if let option { body["option"] = .string(option) }
        return try await fake.post("/click", body)
    }

    /// The DM channel id the fake gives `user`.
    static func dm(_ user: (id: String, name: String)) -> String { "D" + user.id.dropFirst() }

    // MARK: What Slack shows

    func botMessages(_ channel: String) async throws -> [JSONValue] {
        try await fake.get("/messages?channel=\(channel)&from=bot")["messages"]?.arrayValue ?? []
    }

    @discardableResult
    func waitForBotMessage(in channel: String, containing text: String, count: Int = 1, timeout: Int = 60) async throws -> [JSONValue] {
        let query = "for=message&from=bot&channel=\(channel)&contains=\(StackHome.escaped(text))&count=\(count)"
        guard let found = try await fake.wait(query, timeout: timeout)?.arrayValue else {
            let seen = try await botMessages(channel).map { $0["text"]?.stringValue ?? "" }
            throw StackFailure(
                "no bot message containing \(text.debugDescription) in \(channel) within \(timeout) s; the bot's messages there: \(seen)")
        }
        return found
    }

    /// The first bot message in `channel` holding `text` and buttons: a question's card, not the
    /// live view's tool line that names the same title and can come first.
    func waitForCard(in channel: String, containing text: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await waitFor("a card with buttons containing \(text.debugDescription)", timeout: timeout) {
            try await botMessages(channel).first { message in
                message["text"]?.stringValue?.contains(text) == true
                    && (message["blocks"]?.arrayValue ?? []).contains { $0["type"]?.stringValue == "actions" }
            }
        }
    }

    @discardableResult
    func waitForEphemeral(to user: String, containing text: String, timeout: Int = 60) async throws -> [JSONValue] {
        guard let found = try await fake.wait("for=ephemeral&user=\(user)&contains=\(StackHome.escaped(text))", timeout: timeout)?.arrayValue
        else {
            throw StackFailure("no ephemeral containing \(text.debugDescription) for \(user): \(try await fake.get("/ephemerals"))")
        }
        return found
    }

    func envelopes() async throws -> [JSONValue] { try await fake.get("/envelopes")["envelopes"]?.arrayValue ?? [] }

    // MARK: The terminal and pi

    func cli(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        try await home.cli.run(arguments, timeout: timeout)
    }

    func json(_ arguments: String...) async throws -> JSONValue {
        let r = try await cli(arguments + ["--json"])
        guard r.status == 0 else { throw StackFailure("\(r)") }
        return try r.json()
    }

    func piPrompts(containing text: String) -> [JSONValue] {
        let lines = ((try? String(contentsOfFile: piLog, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { try? JSONValue.parse(String($0)) }.filter {
            ["prompt", "steer", "follow_up"].contains($0["type"]?.stringValue ?? "") && $0["message"]?.stringValue?.contains(text) == true
        }
    }

    /// Neither token (nor a recognisable piece of one) is in any file under the test's folder.
    func expectTokensNowhere(sourceLocation: SourceLocation = #_sourceLocation) {
        let needles = [Self.botToken, Self.appToken, String(Self.botToken.suffix(16)), String(Self.appToken.suffix(16))]
        for (path, _) in home.files(containing: needles).found {
            Issue.record("a Slack token is in \(path)", sourceLocation: sourceLocation)
        }
    }
}
