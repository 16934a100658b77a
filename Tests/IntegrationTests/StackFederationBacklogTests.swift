import Foundation
import PiRelaySDK
import PostgresSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The bot's holder dies while its chat lanes still hold messages it took from Telegram: the
/// chat's session runs on a machine that froze, so each forward waits out its few seconds. What
/// the holder had not passed on must reach the session through the next holder, once; what it
/// answered "did not answer" must not run after all. (Before, the holder confirmed its batch to
/// Telegram after 10 s whatever its lanes held, and a message it had routed kept its claim.)
@Suite struct StackFederationBacklogTests {
    static let alice = TelegramStack.alice.id

    @Test(.timeLimit(ScenarioGate.limit(minutes: 8)))
    func aHolderThatDiesWithMessagesInItsLanesLeavesThemToTheNext() async throws {
        try await TelegramStack.withSharedBot { try await Self.scenario(database: $0, laptop: $1, desktop: $2, server: $3) }
    }

    static func scenario(database: PostgresServer, laptop: TelegramStack, desktop: TelegramStack, server: TelegramStack) async throws {
        let environment = ["PI_RELAYD_DATABASE_URL": database.url]
        func federation(_ name: String, preferred: Bool = false) -> String {
            SharedBot.config("telegram", machine: name, preferred: preferred)
        }
        for stack in [laptop, desktop, server] { try stack.home.linkBuiltPlugin("pi-relay-federation", as: "federation") }
        let holder = try await laptop.start(extra: federation("laptop", preferred: true), doomed: true, polling: false, environment: environment)
        try await desktop.start(extra: federation("desktop"), polling: false, environment: environment, allowed: [TelegramStack.bob.id])
        let sessions = try await server.start(
            extra: federation("server"), token: "", polling: false, environment: environment, allowed: [TelegramStack.bob.id])
        let folder = server.home.root + "/web"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try await server.json("new", "--cwd", folder, "--name", "web")
        try await laptop.waitForIngress("telegram")
        try await laptop.waitForMachines(["desktop", "server"])
        try await laptop.dm("/use server web")
        try await laptop.waitForBotMessage(in: alice, containing: "Watching web")
        try await laptop.dm("msg-1")
        try await server.waitForPrompts(upTo: 1, log: "federation")

        // The server freezes whole, its federation plugin too (plugins run in process groups of
        // their own): each forward to it now waits its 6 s and is withdrawn, one after another in
        // the chat's lane. The holder dies 11 s on, with msg-3 sent and not taken, and msg-4 and
        // msg-5 still in its lane.
        let federationPID = try #require(try await sessions.waitForRunning("federation").pid)
        sessions.process.signalGroup(SIGSTOP)
        kill(-federationPID, SIGSTOP)
        for n in 2...5 { try await laptop.dm("msg-\(n)") }
        try await laptop.waitForBotMessage(in: alice, containing: "did not answer")
        try await Task.sleep(for: .seconds(5))
        await holder.killFrozen()
        // The server wakes once the desktop holds the bot: msg-3's request is then too old for
        // it to take, so it never runs, and its claim is free for the desktop.
        try await desktop.waitForIngress("telegram")
        kill(-federationPID, SIGCONT)
        sessions.process.signalGroup(SIGCONT)

        // Each message either was answered "did not answer … nothing was done" by the dead
        // holder and never runs, or reaches the server's pi through the desktop.
        func answers() async throws -> [String] {
            try await laptop.botMessages(alice).compactMap { $0["text"]?.stringValue }.filter { $0.contains("did not answer") }
        }
        func arrived() -> Set<Int> { Set((2...5).filter { !server.piPrompts(containing: "msg-\($0)").isEmpty }) }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, try await answers().count + arrived().subtracting(2..<(2 + answers().count)).count < 4 {
            try await Task.sleep(for: .milliseconds(250))
        }
        // The chat's lane answers in order: the holder's "did not answer"s are for the first ones.
        let told = try await answers()
        let ran = arrived()
        let notRun = Set(told.enumerated().filter { $0.element.contains("nothing was done") }.map { 2 + $0.offset })
        let accounted = Set(2..<(2 + told.count)).union(ran)
        print("federation backlog: the dead holder answered \(told), \(ran.sorted().map { "msg-\($0)" }) ran on the server")
        let log = [desktop.home.daemonLog, laptop.home.daemonLog].map {
            $0.split(separator: "\n").filter { $0.contains("claim") || $0.contains("taken") || $0.contains("forward") || $0.contains("notice") }
                .suffix(30)
                .joined(separator: "\n")
        }.joined(separator: "\n--\n")
        #expect(accounted == Set(2...5), "lost: \(Set(2...5).subtracting(accounted).sorted())\n\(log)")
        #expect(notRun.isDisjoint(with: ran), "told nothing was done, and ran anyway: \(notRun.intersection(ran).sorted())")
        for n in 2...5 {
            let times = server.piPrompts(containing: "msg-\(n)").count
            #expect(times <= 1, "msg-\(n) reached the server's pi \(times) times")
        }
    }
}
