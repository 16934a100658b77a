import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import FederationPlugin

/// A chat's picked machine reaches the database however long it is away: kept in the plugin's
/// state folder (a restarted plugin goes on with it), stored once the database answers, and
/// never over a newer pick another holder made meanwhile.
@Suite(.timeLimit(.minutes(3))) struct PendingPicksTests {
    @Test func aPickMadeWhileTheDatabaseIsAwayIsStoredWhenItIsBack() async throws {
        try await StoreHarness.with { h in
            let folder = NSTemporaryDirectory() + "picks-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let logger = Logger(label: "picks")
            // Another holder picked the server for chat 2 just now: newer than the pick this machine
            // made a minute ago and could not store. Ages, not this machine's clock, decide.
            try await h.store.store(pick: "server", chat: "telegram:2", messenger: "telegram")

            try await h.server.stop()
            let picks = PendingPicks(store: h.store, state: StateStore(directory: folder), logger: logger)
            await picks.add(ChatPicks(messenger: "telegram", picks: ["telegram:2": "laptop"]), at: Date() - 60)
            await picks.add(ChatPicks(messenger: "telegram", picks: ["telegram:1": "desktop"]))
            #expect(await picks.count == 2, "kept while the database is away")
            #expect(await picks.waiting(for: "telegram") == ["telegram:1": "desktop", "telegram:2": "laptop"])

            // The plugin restarts: what waits is read back from its folder.
            let restarted = PendingPicks(store: h.store, state: StateStore(directory: folder), logger: logger)
            #expect(await restarted.count == 2)
            try await h.server.startServer()
            var stored: [String: String] = [:]
            for _ in 0..<100 where await restarted.count > 0 {
                await restarted.flush()
                if await restarted.count > 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            stored = try await h.store.picks(messenger: "telegram")
            #expect(await restarted.count == 0)
            #expect(stored == ["telegram:1": "desktop", "telegram:2": "server"], "the newer pick of chat 2 stays")
            let saved = StateStore(directory: folder).load([PendingPicks.Pick].self, from: PendingPicks.file)
            #expect(saved == [], "nothing left waiting on disk: \(String(describing: saved))")
        }
    }
}
