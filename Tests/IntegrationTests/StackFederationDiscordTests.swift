import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One Discord bot on two machines (docs/FEDERATION.md, "One bot token on several machines"):
/// one fake Discord, which sends every message to every session on its gateway (spec §8, as
/// Discord does for a bot's DMs), and a daemon each for the laptop (preferred) and the desktop on
/// a real PostgreSQL. Only the lease's holder acts on messages; the other keeps them. The
/// laptop's daemon frozen with SIGSTOP: the desktop takes over, acts on what the laptop took in
/// but never passed on, and every message reaches the desktop's session once.
@Suite struct StackFederationDiscordTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)))
    func oneDiscordBotOnTwoMachinesFailsOverWithoutLosingAMessage() async throws {
        try await PostgresServer.with { database in
            try await StackHome.with { laptop in
                try await StackHome.with(gated: false, sharing: laptop.fake) { desktop in
                    try await Self.scenario(database: database, laptop: laptop, desktop: desktop)
                }
            }
        }
    }

    static func scenario(database: PostgresServer, laptop: StackHome, desktop: StackHome) async throws {
        let environment = ["PI_RELAYD_DATABASE_URL": database.url]
        func config(_ name: String, preferred: Bool = false) -> StackConfig {
            var config = StackConfig()
            config.extra = SharedBot.config("discord", machine: name, preferred: preferred)
            return config
        }
        for stack in [laptop, desktop] { try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation") }
        let frozen = try await laptop.start(config("laptop", preferred: true), environment: environment, doomed: true)
        try await desktop.start(config("desktop"), environment: environment)
        let folder = desktop.home.root + "/web"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try await desktop.json("new", "--cwd", folder, "--name", "web")

        try await laptop.waitForIngress("discord")
        try await laptop.waitForMachines(["desktop"])
        #expect(try await desktop.holdsIngress("discord") == false)

        let dm = try await laptop.dmChannel()
        try await laptop.dm("/use desktop web")
        try await laptop.waitForBotMessage(in: dm, containing: "Watching web")
        var sent = 0
        func send() async throws {
            sent += 1
            try await laptop.dm("msg-\(sent)")
        }
        try await send()
        try await send()
        try await desktop.waitForPrompts(upTo: 2, log: "discord")
        // The desktop got every message too, and kept them rather than act on them.
        let standing = try await desktop.json("plugin", "call", "discord", "status")
        #expect(standing["relayed"] == 0 && (standing["kept"]?.intValue ?? 0) >= 3, "the standing-by desktop: \(standing)")

        // Frozen: its discord plugin takes msg-3 in for a daemon that never answers. The desktop
        // kept it too, and acts on it when it takes the bot.
        let frozenAt = Date()
        frozen.signal(SIGSTOP)
        try await send()
        let takeover = try await desktop.takeOver("discord", frozenAt: frozenAt)
        #expect(takeover < 30, "no takeover within \(Int(takeover)) s")
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "discord")

        // Killed outright, and then woken: nothing it held is acted on twice.
        await frozen.killFrozen()
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "discord")
        try await desktop.waitForBotMessage(in: dm, containing: "Echo: msg-\(sent)")

        desktop.expectEachPromptOnce(upTo: sent)
        #expect(laptop.piPrompts(containing: "msg-").isEmpty)
    }
}
