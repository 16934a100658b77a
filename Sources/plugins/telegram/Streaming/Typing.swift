import Logging

/// "typing…" for as long as a run goes on. Telegram shows it for 5 s or until the bot's next
/// message, so it is sent again every 4 s while live views keep coming, and stops at the final
/// answer or 10 s after the last sign of life.
actor Typing {
    private let api: BotAPI
    private let migrations: Migrations
    private let blocked: BlockedChats
    private let logger: Logger
    private var lastKept: [Place: ContinuousClock.Instant] = [:]
    private var loops: [Place: Task<Void, Never>] = [:]

    init(api: BotAPI, migrations: Migrations, blocked: BlockedChats, logger: Logger) {
        self.api = api
        self.migrations = migrations
        self.blocked = blocked
        self.logger = logger
    }

    var activeCount: Int { loops.count }

    func keep(_ place: Place) {
        lastKept[place] = .now
        guard loops[place] == nil else { return }
        // Unstructured on purpose: the indicator repeats on its own clock while the run goes on.
        loops[place] = Task { await self.repeatTyping(place) }
    }

    func stop(_ place: Place) {
        loops.removeValue(forKey: place)?.cancel()
        lastKept[place] = nil
    }

    private func repeatTyping(_ place: Place) async {
        while !Task.isCancelled, let kept = lastKept[place], ContinuousClock.now - kept < .seconds(10) {
            var current = place
            current.chatID = await migrations.current(place.chatID)
            // A chat that blocked the bot shows no typing; asking again would only meet the 403.
            if await blocked.isBlocked(current.chatID) { break }
            do {
                try await api.call("sendChatAction", current.params(["action": "typing"]), chat: current.chatID, counts: false)
            } catch let error as BotAPIError where error.isForbidden {
                await blocked.block(current.chatID, reason: error.text)
                break
            } catch {
                logger.debug("typing in \(place.key): \(error)")
            }
            try? await Task.sleep(for: .seconds(4))
        }
        if !Task.isCancelled { loops[place] = nil }
    }
}
