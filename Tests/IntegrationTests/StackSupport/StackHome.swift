import Foundation
import PiRelaySDK
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The whole product against fakes at its edges: the real `pi-relayd`, its real bundled plugins
/// (formatter, attachments, discord: the built executables linked into plugins/ under their
/// ids), the fake Discord in front of the discord plugin and the fake pi behind every session.
/// Tests act as Discord users (messages, slash commands, button clicks through the fake's control
/// API) and as the local user (the CLI), then read what Discord shows and what pi was sent.
final class StackHome: Sendable {
    static let token = "STACK.MTQ0MDAwMDAwMDAwMDA.Gx7Kp2.vL9qR4sT8wY1zA5cE3nB6mD0fH"
    static let guild = "1100000000000000001"
    static let general = "1200000000000000001"
    static let ops = "1200000000000000002"
    static let bot = "1300000000000000001"

    let home: TestHome
    let fake: StackFake
    /// Where sessions run unless a test names another directory.
    let workspace: String
    let agentDir: String
    /// Another stack's fake Discord: this stack is another machine of one bot (a federation).
    let sharesFake: Bool
    private let started = Mutex<[Daemon]>([])
    /// Everything the CLI printed, for the token check (the harness deletes its output files).
    private let printed = Mutex<[String]>([])

    /// FAKE_PI_LOG: every line the daemon wrote to any pi's stdin.
    var piLog: String { home.scratch + "/pi-stdin.jsonl" }

    /// `sharing`: another stack's fake Discord, for machines that share one bot token.
    init(_ home: TestHome, sharing: StackFake? = nil) async throws {
        self.home = home
        workspace = home.root + "/w"
        agentDir = home.root + "/agent"
        for dir in [workspace, agentDir] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        for id in ["formatter", "attachments", "discord"] { try home.linkBuiltPlugin("pi-relay-" + id, as: id) }
        sharesFake = sharing != nil
        if let sharing {
            fake = sharing
            return
        }
        fake = try await StackFake.discord(
            folder: home.scratch,
            arguments: [
                "--token", Self.token, "--heartbeat-ms", "5000", "--bot-user-id", Self.bot, "--guild", Self.guild,
                "--channel", "\(Self.general):general", "--channel", "\(Self.ops):ops",
            ] + StackUser.all.flatMap { ["--user", "\($0.id):\($0.name)"] })
    }

    /// Runs `body` with a fresh stack. Whatever happens, the daemons it started are stopped and
    /// the fake Discord after them; then every test ends with the same checks: Discord saw no
    /// invalid request from the plugin, and the bot token is in no file of the home and in
    /// nothing any process printed. A stack sharing another's fake leaves the fake's checks to
    /// it. `gated: false` for a stack inside another's scenario.
    static func with<T>(gated: Bool = true, sharing: StackFake? = nil, _ body: (StackHome) async throws -> T) async throws -> T {
        try await TestHome.with(gated: gated) { home in
            let stack = try await StackHome(home, sharing: sharing)
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
                    #expect(violations.isEmpty, "the fake Discord saw invalid requests: \(violations)")
                } catch {
                    Issue.record("could not read the fake Discord's violations: \(error)")
                }
            }
            if !stack.sharesFake { await stack.fake.stop() }
            if case .success = result { stack.expectTokenNowhere() }
            return try result.get()
        }
    }

    // MARK: Starting

    /// Writes the config, starts the daemon and waits until its plugins run and the discord
    /// plugin is on the fake's gateway (identified, or resumed after a restart). `freshCommands`
    /// also waits for the slash commands' registration, which happens once per plugin process
    /// unless it was done within the hour.
    /// A `doomed` daemon is one the test kills with SIGKILL: it is left out of the clean-shutdown
    /// checks at the end (the harness's and this one's). Without `discord`, only the other
    /// plugins are waited for (a test that expects the discord plugin to stop).
    @discardableResult
    func start(
        _ config: StackConfig = StackConfig(), environment: [String: String] = [:], freshCommands: Bool = true,
        doomed: Bool = false, discord: Bool = true
    ) async throws -> Daemon {
        try home.writeConfig(config.yaml(apiBase: fake.apiBase, agentDir: agentDir, workspace: workspace))
        let since = try await fake.cursor
        var env = [
            "DISCORD_BOT_TOKEN": Self.token, "FAKE_PI_LOG": piLog, "FAKE_PI_SEED": "7",
            // Plugins log everything, so the token check covers every line they can write.
            "PI_RELAY_LOG_LEVEL": "trace", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        ]
        env.merge(environment) { _, new in new }
        let daemon = try await doomed ? home.startDoomedDaemon(environment: env) : home.startDaemon(environment: env)
        if !doomed { started.withLock { $0.append(daemon) } }
        for plugin in ["formatter", "attachments"] + (discord ? ["discord"] : []) {
            try await daemon.waitForRunning(plugin, timeout: .seconds(90))
        }
        guard discord else { return daemon }
        try await waitForGateway(since: since)
        if freshCommands {
            guard try await fake.wait("for=request&method=PUT&path=/commands&status=200&count=2&since=\(since)", timeout: 60) != nil else {
                throw StackFailure("the discord plugin registered no slash commands:\n\(home.pluginLog("discord").suffix(3000))")
            }
        }
        return daemon
    }

    /// Waits until the discord plugin has said READY or RESUMED on the fake's gateway since `since`.
    func waitForGateway(since: Int, timeout: Duration = .seconds(90)) async throws {
        try await waitUntil("the discord plugin is on the gateway", timeout: timeout, every: .milliseconds(10)) {
            for kind in ["ready", "resumed"] {
                if try await fake.wait("for=\(kind)&since=\(since)", timeout: 1) != nil { return true }
            }
            return false
        }
    }

    /// The discord plugin's pid, from `pi-relayd plugins`.
    func discordPid(_ daemon: Daemon) async throws -> Int32 {
        let info = try await daemon.waitForRunning("discord")
        guard let pid = info.pid else { throw StackFailure("no pid for discord: \(info)") }
        return pid
    }

    // MARK: What Discord users do

    /// The DM channel between the bot and `user`.
    func dmChannel(_ user: StackUser = .alice) async throws -> String {
        let r = try await fake.post("/dm", ["user_id": .string(user.id)])
        guard let id = r["channel"]?["id"]?.stringValue else { throw StackFailure("no DM channel: \(r)") }
        return id
    }

    /// `user` writes to the bot in their DM. Returns the fake's answer (`id`, `channel_id`).
    @discardableResult
    func dm(_ text: String, from user: StackUser = .alice) async throws -> JSONValue {
        try await inject("/messages", ["user_id": .string(user.id), "username": .string(user.name), "content": .string(text), "dm": true])
    }

    /// `user` writes in a guild channel or thread, mentioning the bot unless told otherwise.
    @discardableResult
    func say(_ text: String, in channel: String, from user: StackUser = .alice, mention: Bool = true) async throws -> JSONValue {
        try await inject(
            "/messages",
            [
                "user_id": .string(user.id), "username": .string(user.name), "content": .string(text),
                "channel_id": .string(channel), "mention_bot": .bool(mention),
            ])
    }

    /// A slash command in `channel`, or in the user's DM when `channel` is nil. Returns the
    /// interaction id.
    func slash(_ name: String, _ options: JSONValue = [:], in channel: String? = nil, from user: StackUser = .alice) async throws -> String {
        var body: JSONValue = [
            "type": 2, "name": .string(name), "options": options, "user": ["id": .string(user.id), "username": .string(user.name)],
        ]
        if let channel { body["channel_id"] = .string(channel) } else { body["dm"] = true }
        return try await interactionID(inject("/interactions", body))
    }

    /// A slash command and the bot's answer to it.
    func command(_ name: String, _ options: JSONValue = [:], in channel: String? = nil, from user: StackUser = .alice) async throws -> StackReply {
        try await reply(to: try await slash(name, options, in: channel, from: user))
    }

    /// A click on the button `customID` of `message`; returns the interaction id. `stale` clicks
    /// a button the message no longer shows, as a client that has not yet seen an edit can.
    func click(_ customID: String, on message: String, from user: StackUser = .alice, stale: Bool = false) async throws -> String {
        var body: JSONValue = [
            "type": 3, "message_id": .string(message), "custom_id": .string(customID),
            "user": ["id": .string(user.id), "username": .string(user.name)],
        ]
        if stale { body["force"] = true }
        return try await interactionID(inject("/interactions", body))
    }

    /// What the bot answered to an interaction, once answered for good.
    func reply(to interaction: String, timeout: Int = 60) async throws -> StackReply {
        guard let view = try await fake.wait("for=interaction&id=\(interaction)&state=done", timeout: timeout) else {
            throw StackFailure("interaction \(interaction) was not answered within \(timeout) s: \(try await fake.interaction(interaction))")
        }
        let ack = view["ack_type"]?.intValue ?? 0
        if let original = view["original_message_id"]?.stringValue, ack == 4 || ack == 5 {
            let m = try await fake.message(original)
            return StackReply(
                ack: ack, text: m["content"]?.stringValue ?? "", components: m["components"]?.arrayValue ?? [],
                ephemeral: m["ephemeral"] == true, messageID: original)
        }
        let data = view["callback"]?["data"]
        return StackReply(
            ack: ack, text: data?["content"]?.stringValue ?? "", components: data?["components"]?.arrayValue ?? [],
            ephemeral: ((data?["flags"]?.intValue ?? 0) & 64) != 0, messageID: nil)
    }

    /// Injects a user action; an action no gateway session received would be lost on Discord
    /// too, so that is a failure here.
    private func inject(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        let r = try await fake.post(path, body)
        guard let to = r["delivered_to"]?.arrayValue, !to.isEmpty else {
            throw StackFailure("nobody was on the gateway to receive \(body.serialized()): \(r.serialized().prefix(400))")
        }
        return r
    }

    private func interactionID(_ r: JSONValue) throws -> String {
        guard let id = r["id"]?.stringValue else { throw StackFailure("no interaction id: \(r)") }
        return id
    }

    // MARK: What Discord shows

    /// The bot's messages in `channel` (current content), oldest first.
    func botMessages(_ channel: String) async throws -> [JSONValue] {
        try await fake.messages(channel: channel)
    }

    /// Waits until the bot has `count` messages in `channel` whose current content contains
    /// `text` (created or changed after `since`, when given); returns them.
    @discardableResult
    func waitForBotMessage(
        in channel: String, containing text: String, since: Int? = nil, count: Int = 1,
        timeout: Int = 60
    ) async throws -> [JSONValue] {
        var query = "for=message&author=bot&channel_id=\(channel)&contains=\(Self.escaped(text))&count=\(count)"
        if let since { query += "&since=\(since)" }
        guard let found = try await fake.wait(query, timeout: timeout)?.arrayValue else {
            let seen = try await botMessages(channel).map { $0["content"]?.stringValue ?? "" }
            throw StackFailure(
                "no bot message containing \(text.debugDescription) in \(channel) within \(timeout) s; the bot's messages there: \(seen)")
        }
        return found
    }

    /// Waits for a question's card: the bot's message in `channel` that contains `text` and has
    /// buttons. The live view's tool line (`⏳ ask_user {…title…}`) may hold the same words,
    /// and may be posted first.
    func waitForCard(in channel: String, containing text: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await waitFor("a card with buttons containing \(text.debugDescription)", timeout: timeout) {
            try await botMessages(channel).first {
                $0["content"]?.stringValue?.contains(text) == true && !($0["components"]?.arrayValue ?? []).isEmpty
            }
        }
    }

    /// The custom id of the button labelled `label` on a message.
    static func button(_ label: String, in message: JSONValue) -> String? {
        let all = (message["components"]?.arrayValue ?? []).flatMap { $0["components"]?.arrayValue ?? [] }
        return all.first { $0["label"]?.stringValue == label }?["custom_id"]?.stringValue
    }

    static func escaped(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    // MARK: The terminal

    /// `pi-relayd ARGS`; what it printed is kept for the token check.
    func cli(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> CLIResult {
        let r = try await home.cli.run(arguments, timeout: timeout)
        printed.withLock { $0.append(r.stdout + "\n" + r.stderr) }
        return r
    }

    /// `pi-relayd ARGS --json`, which must succeed.
    func json(_ arguments: String..., timeout: Duration = .seconds(90)) async throws -> JSONValue {
        let r = try await cli(arguments + ["--json"], timeout: timeout)
        guard r.status == 0 else { throw StackFailure("\(r)") }
        return try r.json()
    }

    /// Starts a session from the terminal; returns its id.
    func newSession(_ name: String, cwd: String? = nil) async throws -> String {
        let made = try await json("new", "--cwd", cwd ?? workspace, "--name", name)
        guard let id = made["id"]?.stringValue else { throw StackFailure("no session id: \(made)") }
        return id
    }

    func sessions() async throws -> [JSONValue] {
        try await json("sessions").arrayValue ?? []
    }

    func session(named name: String) async throws -> JSONValue? {
        try await sessions().first { $0["name"]?.stringValue == name }
    }

    /// Waits until the session is in `state` (idle, busy, ...).
    func waitForState(_ session: String, _ state: String, timeout: Duration = .seconds(60)) async throws {
        try await waitUntil("session \(session) is \(state)", timeout: timeout, every: .milliseconds(250)) {
            try await sessions().contains {
                ($0["id"]?.stringValue == session || $0["name"]?.stringValue == session) && $0["state"]?.stringValue == state
            }
        }
    }

    // MARK: What pi was sent

    /// FAKE_PI_LOG as JSON records, oldest first, optionally of one command type.
    func piInput(_ type: String? = nil) -> [JSONValue] {
        let text = (try? String(contentsOfFile: piLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            .filter { type == nil || $0["type"]?.stringValue == type }
    }

    /// The messages of pi's `prompt`, `steer` and `follow_up` commands containing `text`.
    func piPrompts(containing text: String) -> [JSONValue] {
        piInput().filter {
            ["prompt", "steer", "follow_up"].contains($0["type"]?.stringValue ?? "") && $0["message"]?.stringValue?.contains(text) == true
        }
    }

    /// Waits until pi has been sent a prompt (or steer or follow-up) containing `text`.
    @discardableResult
    func waitForPiPrompt(containing text: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await waitFor("pi received \(text.debugDescription)", timeout: timeout) { piPrompts(containing: text).first }
    }

    // MARK: The token

    /// The bot token (or a recognisable piece of it) appears in no file under the test's folder
    /// (home, logs, state, the fakes' logs, every daemon's stdout and stderr) and in nothing the
    /// CLI printed.
    func expectTokenNowhere(_ token: String = StackHome.token, sourceLocation: SourceLocation = #_sourceLocation) {
        let needles = [token, String(token.suffix(16)), String(token.prefix(20))]
        let (checked, found) = home.files(containing: needles)
        for (path, _) in found {
            Issue.record("the bot token is in \(path)", sourceLocation: sourceLocation)
        }
        #expect(checked > 10, "the token check read only \(checked) files", sourceLocation: sourceLocation)
        for (n, text) in printed.withLock({ $0 }).enumerated() {
            for needle in needles where text.contains(needle) {
                Issue.record("the bot token is in CLI output #\(n)", sourceLocation: sourceLocation)
            }
        }
    }
}
