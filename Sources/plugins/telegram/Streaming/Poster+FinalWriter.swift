import MessengerKit

/// Live views wait for the chat's budget before they are written, behind questions and final
/// answers, so the newest view is the one sent; they are sent without a notification (the final
/// answer notifies), and an edit keeps the message's id. Final answers go first.
extension Poster: FinalWriter {
    func liveTurn(in place: Place, run: String) async throws {
        let chat = await migrations.current(place.chatID)
        guard try await api.queue.turn(chat: chat, priority: .live, replaces: LiveSlot.waiting(run: run, in: place)) else {
            throw LiveEditSuperseded()
        }
    }

    /// The run's live turn still waiting for its place gives it to the final (edits and posts
    /// take their place in `liveTurn`, so nothing else of the run waits).
    func finalTakesOver(run: String, messages: [Int], in place: Place) async {
        await api.queue.supersede(chat: await migrations.current(place.chatID), replaces: LiveSlot.waiting(run: run, in: place))
    }

    func sendLive(_ text: String, to place: Place, slot: LiveSlot) async throws -> Int {
        try await send(text, to: place, quiet: true, pace: .live.taken)
    }

    func editLive(_ id: Int, in place: Place, to text: String) async throws -> Int? {
        let shown = try await edit(id, in: place, to: text, quiet: true, pace: .live.taken)
        return shown == id ? nil : shown
    }

    func sendFinal(_ chunk: String, to place: Place, part: FinalPart) async throws {
        try await send(chunk, to: place, pace: .answer)
    }

    func editFinal(_ id: Int, in place: Place, to chunk: String) async throws {
        try await edit(id, in: place, to: chunk, pace: .answer)
    }

    /// A message Telegram will not delete (too old, already gone) stays: repeating cannot help.
    func deleteLive(_ id: Int, in place: Place) async throws {
        do { try await delete(id, in: place, pace: .answer) } catch let error as BotAPIError where error.isPermanent {
            api.logger.debug("deleting a surplus live message: \(error)")
        }
    }
}

/// Runs' answers as they grow, in Telegram's HTML (one that renders the same is not edited).
typealias LiveMessages = MessengerKit.LiveMessages<Poster>
