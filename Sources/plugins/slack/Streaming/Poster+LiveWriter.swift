import MessengerKit

/// An edit may come back with a new `ts`: a message Slack would not update is posted again.
extension Poster: LiveWriter {
    func sendLive(_ text: String, to place: Place) async throws -> String {
        try await send(text, to: place)
    }

    func editLive(_ ts: String, in place: Place, to text: String) async throws -> String? {
        try await edit(ts, in: place, to: text)
    }
}

/// Runs' answers as they grow, in Slack's mrkdwn.
typealias LiveMessages = MessengerKit.LiveMessages<Poster>
