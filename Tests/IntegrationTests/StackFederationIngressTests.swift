import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One bot token on three machines (docs/FEDERATION.md, "One bot for all machines"): one fake
/// Telegram, one token, and a daemon each for the laptop (preferred), the desktop and the
/// server on a real PostgreSQL (the server without the token: it must never take the bot). Only
/// the lease's holder polls; every message the user writes reaches the desktop's session once. The laptop's daemon frozen with SIGSTOP: another machine
/// takes over and nothing written meanwhile is lost or taken twice; then the laptop's daemon is
/// killed outright, and the bot goes on.
@Suite struct StackFederationIngressTests {
    static let alice = TelegramStack.alice.id

    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)))
    func oneBotOnThreeMachinesFailsOverWithoutLosingAMessage() async throws {
        try await TelegramStack.withSharedBot { try await Self.scenario(database: $0, laptop: $1, desktop: $2, server: $3) }
    }

    static func scenario(database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack, server: TelegramStack) async throws {
        let environment = ["PI_RELAYD_DATABASE_URL": database.url]
        func federation(_ name: String, preferred: Bool = false) -> String {
            SharedBot.config("telegram", machine: name, preferred: preferred)
        }
        // The laptop's daemon is killed in the end: started as doomed, its exit is not checked.
        try laptop.home.linkBuiltPlugin("pi-relay-federation", as: "federation")
        let frozen = try await laptop.start(extra: federation("laptop", preferred: true), doomed: true, polling: false, environment: environment)
        // The server has no bot token: its telegram plugin does not run, so it must never take
        // the bot (it could not take its updates). Only the laptop's config lets alice in: the
        // others let her in because the laptop published its allowlist in the database.
        for (name, stack) in [("desktop", desktop), ("server", server)] {
            try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation")
            try await stack.start(
                extra: federation(name), token: name == "server" ? "" : TelegramStack.token, polling: false, environment: environment,
                allowed: [TelegramStack.bob.id])
        }
        for (stack, name) in [(desktop, "web"), (server, "db")] {
            let folder = stack.home.root + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = try await stack.json("new", "--cwd", folder, "--name", name)
        }

        // The preferred laptop takes the bot's updates; the others stand by.
        try await laptop.waitForIngress("telegram")
        for stack in [desktop, server] { #expect(try await stack.holdsIngress("telegram") == false) }
        try await laptop.waitForMachines(["desktop", "server"])

        // The chat picks the desktop's session: from then on its plain messages go there, and
        // the pick outlives the laptop (it is in the database).
        try await laptop.dm("/use desktop web")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching web")
        // The chat's preferences live where its session runs (its commands go there).
        try await laptop.dm("/progress verbose")
        try await laptop.waitForBotMessage(in: alice, containing: "Progress here is now verbose")
        var sent = 0
        func send() async throws {
            sent += 1
            try await laptop.dm("msg-\(sent)")
        }
        try await send()
        try await send()
        try await desktop.waitForPrompts(upTo: 2, log: "telegram")

        // Frozen: its plugins run on, but stop polling within 10 s and let the lease lapse.
        let frozenAt = Date()
        frozen.signal(SIGSTOP)
        try await send()
        var taker: TelegramStack?
        while taker == nil, Date().timeIntervalSince(frozenAt) < 60 {
            for stack in [desktop, server] where try await stack.holdsIngress("telegram") { taker = stack }
            if taker == nil { try await Task.sleep(for: .milliseconds(250)) }
        }
        let takeover = Date().timeIntervalSince(frozenAt)
        print("federation failover: another machine took the bot's updates \(String(format: "%.1f", takeover)) s after SIGSTOP")
        #expect(taker != nil && takeover < 30, "no takeover within \(Int(takeover)) s")
        #expect(taker === desktop, "the server, whose telegram does not run, took the bot")
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "telegram")

        // The new holder sends the chat's commands where its session runs: the same preferences.
        try await laptop.dm("/progress")
        try await laptop.waitForBotMessage(in: alice, containing: "Progress here: verbose")

        // Killed outright: the bot goes on from the new holder.
        await frozen.killFrozen()
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "telegram")

        // The answers came back through whoever held the bot.
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: msg-\(sent)")

        // The same chat drives a session on a third machine, through the new holder.
        try await laptop.dm("/use server db")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching db")
        try await laptop.dm("migrate the schema")
        try await laptop.waitForBotMessage(in: alice, containing: "Echo: migrate the schema")
        #expect(server.piPrompts(containing: "migrate the schema").count == 1)

        // Each message reached the desktop's pi once, and no other pi.
        desktop.expectEachPromptOnce(upTo: sent)
        #expect(laptop.piPrompts(containing: "msg-").isEmpty && server.piPrompts(containing: "msg-").isEmpty)
        #expect(desktop.piPrompts(containing: "migrate the schema").isEmpty)

        // The chat as alice saw it, seconds from the freeze (for the record: docs and notes).
        let chat = try await laptop.fake.get("/messages?chat_id=\(alice)")["messages"]?.arrayValue ?? []
        let lines = chat.map { message in
            let at = (message["date"]?.intValue ?? 0) - Int(frozenAt.timeIntervalSince1970)
            let who = message["from_bot"] == true ? "bot" : "alice"
            return String(format: "%+4d s  %@: %@", at, who, (message["text"]?.stringValue ?? "").replacingOccurrences(of: "\n", with: " / "))
        }
        print("federation transcript (\(taker === desktop ? "desktop" : "server") took over):\n" + lines.joined(separator: "\n"))
    }
}
