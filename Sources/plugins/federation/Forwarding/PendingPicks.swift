import FoundationEssentials
import Logging
import PiRelaySDK

/// The machines chats of a shared messenger picked (`federation.pick`), on their way to the
/// database. A pick waits in the plugin's state folder until it is stored, so a database that is
/// away, or a restart of the plugin, loses none: a pick lost so was overwritten by the stale one
/// the database held when the next machine took the bot, and the chat's prompts ran in another
/// machine's session. A pick is stored with when it was made (its age on this machine's clock,
/// taken from the database's: machines' clocks differ), never over a newer one.
actor PendingPicks {
    struct Pick: Codable, Sendable, Equatable {
        var messenger: String
        var chat: String
        var machine: String
        /// When the chat picked it, in seconds since 1970.
        var at: Double
    }

    static let file = "pending-picks.json"
    /// How often what waits is tried again.
    static let retryEvery: Duration = .seconds(2)

    private let store: FederationStore
    private let state: StateStore
    private let logger: Logger
    private var waiting: [Pick]
    private var warned = false

    init(store: FederationStore, state: StateStore, logger: Logger) {
        self.store = store
        self.state = state
        self.logger = logger
        waiting = state.load([Pick].self, from: Self.file) ?? []
    }

    /// The picks not stored yet.
    var count: Int { waiting.count }

    /// `messenger`'s picks not stored yet, by chat: newer than what the database holds.
    func waiting(for messenger: String) -> [String: String] {
        var out: [String: String] = [:]
        for pick in waiting where pick.messenger == messenger { out[pick.chat] = pick.machine }
        return out
    }

    /// Keeps `picks` (made `at`), then stores what waits. False when the state folder would not
    /// keep them (they wait in memory).
    @discardableResult
    func add(_ picks: ChatPicks, at: Date = Date()) async -> Bool {
        for (chat, machine) in picks.picks {
            waiting.removeAll { $0.messenger == picks.messenger && $0.chat == chat }
            waiting.append(Pick(messenger: picks.messenger, chat: chat, machine: machine, at: at.timeIntervalSince1970))
        }
        let kept = await state.save(waiting, to: Self.file)
        if !kept { logger.error("cannot save the chats' picked machines (disk full?); kept in memory") }
        await flush()
        return kept
    }

    /// Stores what waits; what the database does not take stays for the next call.
    func flush() async {
        guard !waiting.isEmpty else { return }
        let batch = waiting
        do {
            let now = Date().timeIntervalSince1970
            for pick in batch {
                try await store.store(pick: pick.machine, chat: pick.chat, messenger: pick.messenger, age: max(0, now - pick.at))
            }
        } catch {
            if !warned { logger.warning("\(batch.count) chat(s)' picked machine not stored yet, kept and tried again: \(error)") }
            warned = true
            return
        }
        // A pick made while these were stored is another value, and stays.
        waiting.removeAll { batch.contains($0) }
        await state.save(waiting, to: Self.file)
        if warned { logger.notice("the chats' picked machines are stored again") }
        warned = false
    }

    /// Tries again every `retryEvery` until cancelled.
    func run() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.retryEvery) } catch { return }
            await flush()
        }
    }
}
