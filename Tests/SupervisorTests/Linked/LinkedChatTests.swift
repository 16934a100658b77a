import Foundation
import PiRelaySDK
import Testing

/// The chat and command layers through a messenger linked into the test process: the daemon,
/// its desk and delivery, the real formatter and the plugin protocol on pipes, with no process
/// per plugin (the supervisor in small parts: fast tests).
@Suite(.timeLimit(.minutes(3))) struct LinkedChatTests {
    @Test func commandsAndRefusalsAnswerWithoutASession() async throws {
        try await LinkedRelay.with { relay in
            let help = try await relay.say("/help")
            #expect(help.status == .command)
            #expect(help.reply?.text.contains("/new") == true, "\(help)")

            let unbound = try await relay.say("hello")
            #expect(unbound.status == .unbound)
            #expect(unbound.reply?.text.contains("No session here yet") == true, "\(unbound)")

            let stranger = try await relay.say("hello", from: "intruder")
            #expect(stranger.status == .refused, "a user off the allowlist is refused: \(stranger)")
        }
    }

    @Test func aPromptFromTheChatIsAnsweredThroughTheFormatter() async throws {
        try await LinkedRelay.with { relay in
            let started = try await relay.say("/new \(relay.workspace) linked")
            #expect(started.reply?.text.contains("Started linked") == true, "\(started)")
            let prompted = try await relay.say("hello there")
            #expect(prompted.status == .prompted, "\(prompted)")
            let heard = try await relay.waitToHear("Echo: hello there")
            #expect(heard.contains { $0.method == MethodName.chatPost.rawValue || $0.method == MethodName.chatLive.rawValue })
        }
    }

    /// A direct conversation two users speak in, as every signed-in browser shares a session's
    /// page on the web dashboard: revoking the one who opened it leaves it bound for the other.
    @Test func revokingOneUserOfASharedConversationLeavesItToTheOther() async throws {
        try await LinkedRelay.with(paired: ["ann"]) { relay in
            let started = try await relay.say("/new \(relay.workspace) shared", from: "ann", channel: "page", dm: true)
            #expect(started.reply?.text.contains("Started shared") == true, "\(started)")
            #expect(try await relay.say("hello from u1", channel: "page", dm: true).status == .prompted)
            let revoked = try await relay.control(.usersRevoke, ["id": "ann"])
            #expect(revoked["unbound"] == [], "\(revoked)")
            #expect(try await relay.say("ann is gone", from: "ann", channel: "page", dm: true).status == .refused)
            let again = try await relay.say("still here", channel: "page", dm: true)
            #expect(again.status == .prompted || again.status == .queued, "\(again)")
        }
    }

    /// `relay.status`: a plugin asks the daemon for what `pi-relayd status --json` shows.
    @Test func aPluginReadsTheDaemonsStatus() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) seen")
            guard let connection = await LinkedChats.shared.connection(relay.messengerState) else {
                Issue.record("no linked messenger")
                return
            }
            let status = try await connection.request(.relayStatus, NoPayload())
            #expect(status["home"]?.stringValue == relay.home.root, "\(status)")
            #expect(status["sessions"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["seen"], "\(status)")
            let plugins = status["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(plugins.contains(LinkedRelay.messenger), "\(status)")
            // Drawn at the daemon's start, the same for every plugin's ask (the federation tells
            // daemons apart by it).
            let instance = try #require(status["instance"]?.stringValue, "\(status)")
            let again = try await connection.request(.relayStatus, NoPayload())
            #expect(instance.count == 16 && again["instance"]?.stringValue == instance, "\(instance) \(again)")
            let unknown = await #expect(throws: RemoteError.self) { try await connection.request("relay.nothing") }
            #expect(unknown?.code == .methodNotFound)
        }
    }

    /// `/end` in one chat: every other chat watching the session is told who ended it, and
    /// watches it no more; the chat that ended it has its own reply, not the notice as well.
    @Test func endingASessionTellsTheOtherChatsWatchingIt() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) ending")
            let used = try await relay.say("/use ending", channel: "room")
            #expect(used.reply?.text.contains("Watching ending") == true, "\(used)")
            let ended = try await relay.say("/end", channel: "room")
            #expect(ended.reply?.text == "Ended ending.", "\(ended)")
            let heard = try await relay.waitToHear("ending was ended by u1 on deskchat")
            let told = heard.filter { $0.params.serialized().contains("was ended by") }.compactMap { $0.params["target"]?["channel"]?.stringValue }
            #expect(told == ["dm-u1"], "only the other chat is told: \(told)")
            let after = try await relay.say("hello")
            #expect(after.status == .unbound, "\(after)")
        }
    }

    /// `pi-relayd plugins restart` on a linked plugin: its input is closed (it has no process to
    /// signal), it winds down, and a new instance takes the chat.
    @Test func aRestartedMessengerComesBackAndAnswersAgain() async throws {
        try await LinkedRelay.with { relay in
            let first = await LinkedChats.shared.connection(relay.messengerState)
            _ = try await relay.control(.pluginsRestart, ["name": .string(LinkedRelay.messenger)])
            try await relay.waitForNewMessenger(replacing: first)
            let help = try await relay.say("/help")
            #expect(help.status == .command, "\(help)")
            let plugins = try await relay.control(.plugins)
            let shown = plugins.serialized()
            #expect(shown.contains("in-process:deskchat"), "\(shown)")
        }
    }

    /// A messenger that goes away while one of its requests waits for pi (a `/compact`, up to
    /// ten minutes) is started again at once, not when the request is done.
    @Test func aMessengerThatEndsWithARequestInFlightComesBackAtOnce() async throws {
        try await LinkedRelay.with(piEnv: ["FAKE_PI_COMPACT_MS": "60000"]) { relay in
            _ = try await relay.say("/new \(relay.workspace) slow")
            let first = try #require(await LinkedChats.shared.connection(relay.messengerState))
            // Its answer never comes: the instance that asked is gone when pi is done.
            let chat = Chat(messenger: LinkedRelay.messenger, channel: "dm-" + LinkedRelay.user, user: LinkedRelay.user, dm: true)
            let compact = ChatMessageParams(chat: chat, messageID: "compact-1", text: "/compact")
            async let compacting: ChatMessageResult? = try? first.request(.chatMessage, compact)
            try await waitUntilCompacting(relay)
            _ = try await relay.control(.pluginsRestart, ["name": .string(LinkedRelay.messenger)])
            try await relay.waitForNewMessenger(replacing: first)
            let help = try await relay.say("/help")
            #expect(help.status == .command, "\(help)")
            _ = await compacting
        }
    }

    /// pi's queue of follow-ups lives in pi (pi-rpc spec): when pi exits, a message the chat was
    /// told was queued loses its `⏳` and the chat is told it did not run.
    @Test func aQueuedMessageIsReportedNotRunWhenPiExits() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) busy")
            _ = try await relay.say("!scenario slow 200 100")
            let queued = try await relay.say("and then the docs")
            #expect(queued.reply?.text.contains("Queued as follow-up for busy") == true, "\(queued)")
            #expect(queued.reaction == "⏳", "\(queued)")
            let sessions = try await relay.control(.sessions).arrayValue ?? []
            let pid = try #require(sessions.first { $0["name"] == "busy" }?["pid"]?.intValue, "\(sessions)")
            kill(pid_t(pid), SIGKILL)
            let heard = try await relay.waitToHear("Not run: pi exited before it reached your queued message")
            let removed = heard.contains { $0.method == MethodName.chatReact.rawValue && $0.params["remove"] == true && $0.params["emoji"] == "⏳" }
            #expect(removed, "the ⏳ comes off: \(heard.map(\.method))")
        }
    }

    /// pi-rpc spec §5: `abort` keeps what pi had queued, and its next run starts with it. A
    /// `/stop` tells the chat whose message waits so; it keeps its `⏳` until pi takes it. A new
    /// conversation empties the queue: then the message did not run, and the chat hears that.
    @Test func aStopSaysWhatPiStillHasQueuedAndANewConversationWhatItDropped() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) busy")
            _ = try await relay.say("!scenario slow 200 100")
            try await waitUntilStreaming(relay)
            let queued = try await relay.say("and then the docs")
            #expect(queued.reaction == "⏳", "\(queued)")
            _ = try await relay.say("/stop")
            let heard = try await relay.waitToHear("The run was stopped, but pi keeps your queued message (“and then the docs”)")
            #expect(!heard.contains { $0.method == MethodName.chatReact.rawValue && $0.params["remove"] == true }, "the ⏳ stays")

            _ = try await relay.say("!scenario slow 200 100")
            try await waitUntilStreaming(relay)
            let again = try await relay.say("and the tests")
            #expect(again.reaction == "⏳", "\(again)")
            _ = try await relay.say("/reset")
            _ = try await relay.waitToHear(
                "Not run: a new conversation was started, which empties pi's queue with your queued message (“and the tests”)")
        }
    }

    /// Until pi says it is streaming a run (`get_state`'s `isStreaming`, pi-rpc spec), so that a
    /// message sent next waits behind it on a loaded machine too.
    private func waitUntilStreaming(_ relay: LinkedRelay) async throws {
        for _ in 0..<1500 {
            if try await relay.control(.state, ["session": "busy"])["isStreaming"] == true { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("pi never said it was streaming")
    }

    /// Until pi says it is compacting (`get_state`'s `isCompacting`, pi-rpc spec).
    private func waitUntilCompacting(_ relay: LinkedRelay) async throws {
        for _ in 0..<500 {
            if try await relay.control(.state, ["session": "slow"])["isCompacting"] == true { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("pi never said it was compacting")
    }

    /// The web page's dialect through the whole relay: what the agent says reaches the page as
    /// text, never as a tag.
    @Test func aPromptWithMarkupComesBackEscapedForAWebPage() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) web")
            _ = try await relay.say("<img src=x onerror=alert(1)> **hi**")
            // Markdown still becomes the promised tags.
            let heard = try await relay.waitToHear("&lt;img src=x onerror=alert(1)&gt; <b>hi</b>")
            let shown = heard.map { $0.params.serialized() }.joined()
            #expect(!shown.contains("<img"), "\(shown)")
        }
    }
}
