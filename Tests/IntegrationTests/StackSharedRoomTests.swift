import Foundation
import PiRelaySDK
import Testing

/// Shared-room mode (docs/MACHINES.md) on Telegram: three machines (laptop, desktop, server), each
/// with its own daemon, home and bot, in one group. Each bot has a fake Telegram of its own, and
/// the test hands every message the user writes in the group to each of them, as Telegram hands
/// a group's message to every bot in it (telegram-bot-api.md §13: bots never see each other's).
@Suite struct StackSharedRoomTests {
    static let group = "-1009000000001"
    static let room = "  sharedRooms: all\n"

    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)))
    func threeMachinesOneGroupUseToAndABareUse() async throws {
        try await TelegramStack.with { laptop in
            try await TelegramStack.with(gated: false, bot: (id: "7000000002", username: "desktop_test_bot")) { desktop in
                try await TelegramStack.with(gated: false, bot: (id: "7000000003", username: "server_test_bot")) { server in
                    try await Self.scenario(laptop: laptop, desktop: desktop, server: server)
                }
            }
        }
    }

    static func scenario(laptop: TelegramStack, desktop: TelegramStack, server: TelegramStack) async throws {
        let machines = [("laptop", laptop), ("desktop", desktop), ("server", server)]
        for (name, stack) in machines { try await stack.start(extra: room + "machine: \(name)\n") }
        for (stack, names) in [(laptop, ["api", "dup"]), (desktop, ["web", "dup"])] {
            for name in names {
                let folder = stack.home.root + "/" + name
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                _ = try await stack.json("new", "--cwd", folder, "--name", name)
            }
        }
        let all = machines.map(\.1)

        // Every machine lists its own sessions, and says how to pick one by what to write.
        try await say("/sessions", to: all)
        let lists = try await [laptop, desktop].asyncMap { try await $0.waitForBotMessage(in: group, containing: "Sessions on").first ?? [:] }
        #expect(text(lists[0]).contains("1. api") && text(lists[0]).contains("/use laptop NAME"), "\(text(lists[0]))")
        #expect(text(lists[1]).contains(". web") && text(lists[1]).contains(". dup"), "\(text(lists[1]))")
        #expect(lists[0]["reply_markup"] == nil || lists[0]["reply_markup"] == .null, "no buttons pick a machine: \(lists[0])")
        try await server.waitForBotMessage(in: group, containing: "No sessions on server")

        // No machine picked: each says how to pick one on it.
        try await say("hello?", to: all)
        for (name, stack) in machines { try await stack.waitForBotMessage(in: group, containing: "/use \(name) SESSION") }

        // `/use laptop api`: the laptop alone answers, and the prompt after it reaches its pi only.
        var marks = try await cursors(all)
        try await say("/use laptop api", to: all)
        try await laptop.waitForBotMessage(in: group, containing: "Watching api")
        try await say("first prompt", to: all)
        try await laptop.waitForBotMessage(in: group, containing: "Echo: first prompt")
        try await expectSilent([desktop, server], since: Array(marks.dropFirst()))
        #expect(laptop.piPrompts(containing: "first prompt").count == 1)
        #expect(desktop.piPrompts(containing: "first prompt").isEmpty && server.piPrompts(containing: "first prompt").isEmpty)

        // `/use desktop web`: now the desktop's.
        marks = try await cursors(all)
        try await say("/use desktop web", to: all)
        try await desktop.waitForBotMessage(in: group, containing: "Watching web")
        try await say("second prompt", to: all)
        try await desktop.waitForBotMessage(in: group, containing: "Echo: second prompt")
        try await expectSilent([laptop, server], since: [marks[0], marks[2]])
        #expect(laptop.piPrompts(containing: "second prompt").isEmpty && desktop.piPrompts(containing: "second prompt").count == 1)

        // `/to laptop/api …` reaches the laptop's session whichever machine is picked.
        try await say("/to laptop/api third prompt", to: all)
        try await laptop.waitForBotMessage(in: group, containing: "Echo: third prompt")
        #expect(laptop.piPrompts(containing: "third prompt").count == 1 && desktop.piPrompts(containing: "third prompt").isEmpty)

        // A bare `/use dup`: both machines that have a dup ask which machine; nothing is bound,
        // so the next prompt still goes to the desktop's web.
        marks = try await cursors(all)
        try await say("/use dup", to: all)
        try await laptop.waitForBotMessage(in: group, containing: "/use laptop dup")
        try await desktop.waitForBotMessage(in: group, containing: "/use desktop dup")
        try await say("fourth prompt", to: all)
        try await desktop.waitForBotMessage(in: group, containing: "Echo: fourth prompt")
        try await expectSilent([server], since: [marks[2]])
        #expect(laptop.piPrompts(containing: "fourth prompt").isEmpty && desktop.piPrompts(containing: "fourth prompt").count == 1)
        try await say("/sessions", to: [laptop])
        let list = text(try await laptop.waitForBotMessage(in: group, containing: "Sessions on laptop", count: 2).last ?? [:])
        let dupLine = list.split(separator: "\n").first { $0.contains(". dup") } ?? ""
        #expect(!dupLine.isEmpty && !dupLine.contains("here"), "the bare /use bound nothing: \(list)")

        // The pick outlives a restart of every daemon.
        for (name, stack) in machines {
            for daemon in stack.daemons { _ = await daemon.terminate() }
            try await stack.start(extra: room + "machine: \(name)\n")
        }
        marks = try await cursors(all)
        try await say("fifth prompt", to: all)
        try await desktop.waitForBotMessage(in: group, containing: "Echo: fifth prompt")
        try await expectSilent([laptop, server], since: [marks[0], marks[2]])
    }

    /// Privacy mode hides a group's plain messages, and bare commands, from a bot that is no
    /// admin there (telegram-bot-api.md §13), and a shared room needs them: `doctor` fails on each
    /// listed room where that is so, and says both ways out; `setup` says it too.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func doctorAndSetupSayWhatASharedRoomNeeds() async throws {
        try await TelegramStack.with { stack in
            try stack.home.writeConfig(stack.yaml(extra: "  sharedRooms: [\(Self.group)]\nmachine: laptop\n"))
            _ = try await stack.fake.post("/chats", ["id": .string(Self.group), "type": "supergroup", "title": "team"])
            let cli = CLI(
                environment: stack.home.environment([
                    "TELEGRAM_BOT_TOKEN": TelegramStack.token, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                ]), scratch: stack.home.scratch)
            func roomCheck() async throws -> JSONValue? {
                let checks = try DoctorTests.checks(try await cli.run(["doctor", "--json", "--min-free-mb", "1"], timeout: .seconds(120)))
                return checks.values.first { $0["detail"]?.stringValue?.contains("shared room") == true }
            }

            _ = try await stack.fake.post("/settings", ["privacy_mode": true, "bot_is_admin": false])
            let failed = try #require(try await roomCheck(), "doctor said nothing of the shared room")
            let detail = failed["detail"]?.stringValue ?? ""
            #expect(failed["passed"] == false, "\(failed)")
            #expect(detail.contains("shared room \(Self.group): the bot is no admin there (member)"), "\(detail)")
            #expect(detail.contains("/setprivacy") && detail.contains("admin of each shared group"), "\(detail)")
            let setup = try await stack.home.run(["setup", "telegram", "--token-stdin"], input: TelegramStack.token, extra: StackSetupTests.quiet)
            #expect(setup.stdout.contains("a shared room (telegram.sharedRooms) needs the bot to read every message"), "\(setup)")
            // setup saved the token, and its input was a file: the stack checks that no file keeps it.
            try FileManager.default.removeItem(atPath: stack.home.path + "/.env")
            for input in try FileManager.default.contentsOfDirectory(atPath: stack.home.scratch) where input.hasSuffix(".in") {
                try FileManager.default.removeItem(atPath: stack.home.scratch + "/" + input)
            }

            // An admin reads every message: nothing to fix.
            _ = try await stack.fake.post("/settings", ["bot_is_admin": true])
            #expect(try await roomCheck() == nil)
            // Privacy mode off: nothing to fix either.
            _ = try await stack.fake.post("/settings", ["privacy_mode": false, "bot_is_admin": false])
            #expect(try await roomCheck() == nil)
        }
    }

    /// `requireMention: false` with privacy mode on (BotFather's default): the groups would
    /// never deliver a plain message, and doctor said "which is all it needs". It names the fix.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func doctorSaysThatGroupsWithoutMentionsNeedPrivacyModeOff() async throws {
        try await TelegramStack.with { stack in
            try stack.home.writeConfig(stack.yaml(extra: "", section: ["requireMention: false"]))
            let cli = CLI(
                environment: stack.home.environment([
                    "TELEGRAM_BOT_TOKEN": TelegramStack.token, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                ]), scratch: stack.home.scratch)
            func privacyCheck() async throws -> JSONValue? {
                let checks = try DoctorTests.checks(try await cli.run(["doctor", "--json", "--min-free-mb", "1"], timeout: .seconds(120)))
                return checks.values.first { $0["detail"]?.stringValue?.contains("requireMention") == true }
            }
            _ = try await stack.fake.post("/settings", ["privacy_mode": true])
            let failed = try #require(try await privacyCheck(), "doctor said nothing of privacy mode")
            #expect(failed["passed"] == false && failed["detail"]?.stringValue?.contains("/setprivacy") == true, "\(failed)")
            _ = try await stack.fake.post("/settings", ["privacy_mode": false])
            #expect(try await privacyCheck() == nil)
        }
    }

    // MARK: The room

    /// Alice writes `text` in the group; every bot's Telegram gets it.
    static func say(_ text: String, to stacks: [TelegramStack]) async throws {
        for stack in stacks { try await stack.say(text, in: group) }
    }

    static func cursors(_ stacks: [TelegramStack]) async throws -> [Int] {
        try await stacks.asyncMap { try await $0.fake.cursor }
    }

    /// None of these bots posted or edited anything in the group since its mark (given a moment,
    /// as the others answered already).
    static func expectSilent(_ stacks: [TelegramStack], since marks: [Int], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await Task.sleep(for: .seconds(2))
        for (stack, mark) in zip(stacks, marks) {
            let posted = try await stack.fake.wait("for=message&from=bot&chat_id=\(group)&since=\(mark)", timeout: 0)
            #expect(posted == nil, "a bot that was not picked spoke: \(String(describing: posted))", sourceLocation: sourceLocation)
        }
    }

    static func text(_ message: JSONValue) -> String { message["text"]?.stringValue ?? "" }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
