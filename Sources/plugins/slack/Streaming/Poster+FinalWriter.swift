import MessengerKit

/// Live views wait in the channel's send queue behind questions and final answers, and a newer
/// view's edit takes the place of one still waiting; final answers go first. An edit may come
/// back with a new `ts`: a message Slack would not update is posted again.
extension Poster: FinalWriter {
    func sendLive(_ text: String, to place: Place, slot: LiveSlot) async throws -> String {
        try await send(text, to: place, priority: .live, replaces: LiveSlot.waiting(run: slot.run, in: place))
    }

    func editLive(_ ts: String, in place: Place, to text: String) async throws -> String? {
        try await edit(ts, in: place, to: text, priority: .live)
    }

    func sendFinal(_ chunk: String, to place: Place, part: FinalPart) async throws {
        _ = try await send(chunk, to: place, priority: .answer)
    }

    func finalTakesOver(run: String, messages: [String], in place: Place) async {
        await dropWaitingWrites(post: LiveSlot.waiting(run: run, in: place), edits: messages, in: place)
    }

    func editFinal(_ ts: String, in place: Place, to chunk: String) async throws {
        _ = try await edit(ts, in: place, to: chunk, priority: .answer)
    }

    func deleteLive(_ ts: String, in place: Place) async throws {
        try await delete(ts, in: place, priority: .answer)
    }

    /// The bot may not write in the channel (`not_in_channel`, `is_archived`) or the view broke a
    /// limit: the view stops until the final, rather than spending the workspace's one Tier 3
    /// `chat.update` budget, which every other run's views share, on a call refused every time.
    func givesUp(after error: any Error) -> Bool {
        (error as? SlackAPIError)?.isPermanent == true
    }
}

/// Runs' answers as they grow, in Slack's mrkdwn.
typealias LiveMessages = MessengerKit.LiveMessages<Poster>
