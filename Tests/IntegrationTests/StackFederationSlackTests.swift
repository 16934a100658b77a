import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One Slack app on three machines (docs/FEDERATION.md, "One bot for all machines"): one fake
/// Slack, which hands each event to any one open socket (spec §3.8), and a daemon each for the
/// laptop (preferred), the desktop and the server (without the token) on a real PostgreSQL. Only
/// the lease's holder holds a socket. The laptop's daemon frozen with SIGSTOP: its plugin closes its socket, acknowledges
/// nothing its daemon did not take, and the desktop takes over; Slack's retries bring it what the
/// laptop left, and every message reaches the desktop's session once. Then the laptop is killed.
@Suite struct StackFederationSlackTests {
    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)))
    func oneSlackAppOnThreeMachinesFailsOverWithoutLosingAMessage() async throws {
        try await PostgresServer.with { database in
            try await SlackStack.with(checked: false) { laptop in
                try await SlackStack.with(gated: false, sharing: laptop.fake) { desktop in
                    try await SlackStack.with(gated: false, sharing: laptop.fake) { server in
                        try await Self.scenario(database: database, laptop: laptop, desktop: desktop, server: server)
                    }
                }
            }
        }
    }

    static func scenario(database: PostgresServer, laptop: SlackStack, desktop: SlackStack, server: SlackStack) async throws {
        let environment = ["PI_RELAYD_DATABASE_URL": database.url]
        func federation(_ name: String, preferred: Bool = false) -> String {
            SharedBot.config("slack", machine: name, preferred: preferred)
        }
        for stack in [laptop, desktop, server] { try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation") }
        let frozen = try await laptop.start(
            extra: federation("laptop", preferred: true), connected: false, doomed: true, environment: environment)
        try await desktop.start(extra: federation("desktop"), connected: false, environment: environment)
        // The server has no bot token: its slack plugin does not run, so it never takes the app.
        try await server.start(extra: federation("server"), botToken: "", connected: false, environment: environment)
        let folder = desktop.home.root + "/web"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try await desktop.json("new", "--cwd", folder, "--name", "web")

        // The preferred laptop holds the one socket; the desktop stands by without one.
        try await laptop.waitForIngress("slack")
        try await laptop.waitForMachines(["desktop", "server"])
        let laptopSockets = try await openSockets(laptop.fake, waitingFor: 1)
        try await Task.sleep(for: .seconds(2))
        #expect(try await openSockets(laptop.fake) == laptopSockets, "the standing-by desktop opened a socket")
        #expect(try await desktop.holdsIngress("slack") == false)
        #expect(try await server.holdsIngress("slack") == false)

        let dm = SlackStack.dm(SlackStack.alice)
        try await laptop.command("use desktop web")
        try await laptop.waitForBotMessage(in: dm, containing: "Watching web")
        var sent = 0
        func send() async throws {
            sent += 1
            try await laptop.say("msg-\(sent)")
        }
        try await send()
        try await send()
        try await desktop.waitForPrompts(upTo: 2, log: "slack")

        // Frozen: its slack plugin runs on, but acknowledges only what its daemon took (nothing
        // now), closes its socket within 10 s, and the lease passes to the desktop.
        let frozenAt = Date()
        frozen.signal(SIGSTOP)
        try await send()
        let takeover = try await desktop.takeOver("slack", frozenAt: frozenAt)
        #expect(takeover < 30, "no takeover within \(Int(takeover)) s")
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "slack")
        let afterTakeover = try await openSockets(laptop.fake)
        #expect(afterTakeover.count == 1 && afterTakeover.isDisjoint(with: laptopSockets), "sockets open after the takeover: \(afterTakeover)")

        // Killed outright: the app goes on from the desktop.
        await frozen.killFrozen()
        try await send()
        try await desktop.waitForPrompts(upTo: sent, log: "slack")
        try await desktop.waitForBotMessage(in: dm, containing: "Echo: msg-\(sent)")

        // Each message reached the desktop's pi once, and the laptop's pi none.
        desktop.expectEachPromptOnce(upTo: sent)
        #expect(laptop.piPrompts(containing: "msg-").isEmpty && server.piPrompts(containing: "msg-").isEmpty)
        #expect(try await server.holdsIngress("slack") == false, "the server, whose slack does not run, took the app")

        // What Slack saw: the only envelopes left unacknowledged went to the frozen laptop's
        // sockets (its daemon could not take them; Slack sent them again), and nothing else.
        let envelopes = try await laptop.envelopes()
        let connectionOf = Dictionary(
            envelopes.compactMap { e in e["envelope_id"]?.stringValue.map { ($0, e["connection"]?.intValue ?? -1) } }, uniquingKeysWith: { a, _ in a }
        )
        var unacknowledged = 0
        for violation in try await laptop.fake.violations() {
            let detail = violation["detail"]?.stringValue ?? ""
            let unacked = detail.hasPrefix("envelope ") && detail.contains("not acked within")
            let envelope = detail.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            #expect(
                unacked && laptopSockets.contains(connectionOf[envelope] ?? -1),
                "the fake Slack saw an invalid request: \(violation)")
            if unacked { unacknowledged += 1 }
        }
        // msg-3 went to the frozen laptop's socket, the only one then: it was left to Slack.
        print("federation failover (slack): \(unacknowledged) envelope(s) left unacknowledged on the frozen laptop")
        #expect(unacknowledged >= 1)
        laptop.expectTokensNowhere()
        desktop.expectTokensNowhere()
        server.expectTokensNowhere()
    }

    /// The fake's open sockets that said hello; with `waitingFor`, once there are that many.
    static func openSockets(_ fake: StackFake, waitingFor count: Int? = nil) async throws -> Set<Int> {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let connections = try await fake.get("/connections")["connections"]?.arrayValue ?? []
            let open = Set(connections.filter { $0["open"] == true && $0["hello_at"] != .null }.compactMap { $0["id"]?.intValue })
            guard let count, open.count != count, Date() < deadline else { return open }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
