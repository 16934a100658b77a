import Foundation
import PiRelaySDK
import Testing

/// One Discord bot token on two machines (two daemons, each with its own home and machine name,
/// on one fake Discord that hands every event to every gateway session, as Discord does): a DM
/// is answered once, by the machine whose `discord.dms` is `answer`, and a slash command in a
/// server channel only by the machine whose `discord.channels` holds it.
@Suite struct StackSharedTokenTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func aDMIsAnsweredOnceAndEachChannelByItsMachine() async throws {
        try await StackHome.with { stack in
            var laptop = StackConfig(extra: "machine: laptop\n")
            laptop.channels = [(id: StackHome.general, cwd: stack.workspace, name: "api")]
            try await stack.start(laptop)

            try await TestHome.with(gated: false) { home in
                let desktop = try await Self.startSecond(stack, home: home, machine: "desktop")
                do {
                    // Both are on the gateway, so both get the DM; only the laptop answers it.
                    let dm = try await stack.dmChannel()
                    let before = try await stack.botMessages(dm).count
                    try await stack.dm("/sessions")
                    let answered = try await stack.waitForBotMessage(in: dm, containing: "on laptop")
                    #expect(answered.count == 1)
                    try await Task.sleep(for: .seconds(2))
                    let posted = try await stack.botMessages(dm).dropFirst(before).compactMap { $0["content"]?.stringValue }
                    #expect(posted.count == 1 && !posted.contains { $0.contains("desktop") }, "\(posted)")

                    // A slash command in each machine's channel is answered there, by that machine only.
                    for (channel, machine) in [(StackHome.general, "laptop"), (StackHome.ops, "desktop")] {
                        let id = try await stack.slash("sessions", in: channel)
                        let reply = try await stack.reply(to: id)
                        #expect(reply.text.contains("on \(machine)"), "\(machine): \(reply)")
                        #expect(try await stack.fake.wait("for=request&method=POST&path=/interactions/\(id)/&count=2", timeout: 2) == nil)
                    }
                    // A DM slash command, like the DM itself, is the laptop's.
                    let inDM = try await stack.reply(to: try await stack.slash("sessions"))
                    #expect(inDM.text.contains("on laptop"), "\(inDM)")
                    #expect(!home.read("logs/discord.log").contains("already been acknowledged"))
                } catch {
                    _ = await desktop.terminate()
                    throw error
                }
                let (exit, forced) = await desktop.terminate()
                #expect(exit == .exited(0) && !forced)
            }
        }
    }

    /// A second daemon in `home` on the stack's fake Discord, with the same token, its own
    /// machine name and channel (ops), and DMs left to the first (`dms: ignore`).
    static func startSecond(_ stack: StackHome, home: TestHome, machine: String) async throws -> Daemon {
        for id in ["formatter", "attachments", "discord"] {
            try FileManager.default.createSymbolicLink(
                atPath: home.pluginsDir + "/" + id, withDestinationPath: BuildProducts.executable("pi-relay-" + id))
        }
        let workspace = home.root + "/w"
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        var config = StackConfig(extra: "machine: \(machine)\n")
        config.channels = [(id: StackHome.ops, cwd: workspace, name: "web")]
        config.discordKeys = ["dms: ignore"]
        try home.writeConfig(config.yaml(apiBase: stack.fake.apiBase, agentDir: stack.agentDir, workspace: workspace))
        let since = try await stack.fake.cursor
        let daemon = try await home.startDaemon(
            environment: [
                "DISCORD_BOT_TOKEN": StackHome.token, "FAKE_PI_LOG": home.scratch + "/pi-stdin.jsonl",
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            ])
        for plugin in ["formatter", "attachments", "discord"] { try await daemon.waitForRunning(plugin, timeout: .seconds(90)) }
        try await stack.waitForGateway(since: since)
        return daemon
    }
}
