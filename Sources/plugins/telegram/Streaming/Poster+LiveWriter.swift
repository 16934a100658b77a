import MessengerKit

/// Live views are sent without a notification (the final answer notifies), and an edit keeps
/// the message's id.
extension Poster: LiveWriter {
    func sendLive(_ text: String, to place: Place) async throws -> Int {
        try await send(text, to: place, quiet: true)
    }

    func editLive(_ id: Int, in place: Place, to text: String) async throws -> Int? {
        try await edit(id, in: place, to: text)
        return nil
    }
}

/// Runs' answers as they grow, in Telegram's HTML (one that renders the same is not edited).
typealias LiveMessages = MessengerKit.LiveMessages<Poster>
