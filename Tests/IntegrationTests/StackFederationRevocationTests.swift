import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

/// A user revoked on one machine of a federation that shares one bot is refused by the bot,
/// whichever machine paired them (docs/FEDERATION.md, "Revoking a user"). Alice is paired on the
/// desktop and on the server, not on the laptop, which holds the bot. The server is stopped: its
/// allowlist stays in the database as it last published it. `users revoke` on the laptop then
/// refuses her at once; the desktop drops its pairing of her, and so does the server when it
/// starts again.
@Suite struct StackFederationRevocationTests {
    static let alice = TelegramStack.alice

    @Test(.timeLimit(ScenarioGate.limit(minutes: 6)))
    func aUserRevokedOnOneMachineIsRefusedThroughEveryMachinesPairing() async throws {
        try await TelegramStack.withSharedBot { try await Self.scenario(database: $0, laptop: $1, desktop: $2, server: $3) }
    }

    static func scenario(database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack, server: TelegramStack) async throws {
        let environment = ["PI_RELAYD_DATABASE_URL": database.url]
        let paired = """
            {"version":1,"users":[{"messenger":"telegram","id":"\(alice.id)","name":"alice","pairedAt":"2026-11-01T08:00:00.000Z"}]}

            """
        for stack in [desktop, server] {
            try FileManager.default.createDirectory(atPath: stack.home.path + "/state", withIntermediateDirectories: true)
            try stack.home.writeFile("state/paired-users.json", paired, mode: 0o600)
        }
        // Only bob is configured anywhere: alice gets in through the desktop's and the server's pairings.
        var daemons: [String: Daemon] = [:]
        for (name, stack) in [("laptop", laptop), ("desktop", desktop), ("server", server)] {
            try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation")
            daemons[name] = try await stack.start(
                extra: SharedBot.config("telegram", machine: name, preferred: name == "laptop"), polling: false, environment: environment,
                allowed: [TelegramStack.bob.id])
        }
        let folder = desktop.home.root + "/web"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try await desktop.json("new", "--cwd", folder, "--name", "web")
        try await laptop.waitForIngress("telegram")
        try await laptop.waitForMachines(["desktop", "server"])

        try await laptop.dm("/use desktop web")
        try await laptop.waitForBotMessage(in: alice.id, containing: "Watching web")

        // The server goes away; what it published stays in the database.
        let (exit, _) = await daemons["server"]!.terminate()
        #expect(exit == .exited(0))

        let revoked = try await laptop.cli(["users", "revoke", alice.id, "--json"])
        #expect(revoked.status == 0, "\(revoked)")
        #expect(try revoked.json()["acrossFederation"] == ["telegram"], "\(revoked)")

        // Refused from her next message on: through neither the desktop's pairing nor the
        // offline server's.
        try await laptop.dm("msg-1")
        try await laptop.waitForBotMessage(in: alice.id, containing: "Not authorized.")
        #expect(desktop.piPrompts(containing: "msg-1").isEmpty)

        // The desktop drops its own pairing of her.
        try await waitUntil("the desktop dropped alice's pairing") { !desktop.home.read("state/paired-users.json").contains(alice.id) }
        // The server, started again, takes the revocation in before anything else.
        try await server.start(
            extra: SharedBot.config("telegram", machine: "server"), polling: false, environment: environment, allowed: [TelegramStack.bob.id])
        try await waitUntil("the server dropped alice's pairing") { !server.home.read("state/paired-users.json").contains(alice.id) }
        try await laptop.waitForMachines(["desktop", "server"])
        try await laptop.dm("msg-2")
        try await Task.sleep(for: .seconds(3))
        #expect(desktop.piPrompts(containing: "msg-2").isEmpty && server.piPrompts(containing: "msg-2").isEmpty)
        let refusals = try await laptop.botMessages(alice.id).filter { $0["text"]?.stringValue?.contains("Not authorized.") == true }
        #expect(refusals.count == 1, "refused once, not once per message: \(refusals)")

        // Bob, configured, is not touched.
        try await laptop.dm("/use desktop web", from: TelegramStack.bob)
        try await laptop.waitForBotMessage(in: TelegramStack.bob.id, containing: "Watching web")
    }

    static func waitUntil(_ what: String, within seconds: Double = 30, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw StackFailure("not within \(Int(seconds)) s: \(what)") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
