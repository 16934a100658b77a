import MessengerKit

/// A prompt typed in a session's page, journalled until pi-relayd has it. The browser makes its
/// id, so a send it repeats (after a lost answer) is one prompt.
struct WebMessage: InboxMessage {
    static let remembered = 500

    var id: String
    var session: String
    var user: String
    var text: String
    var images: [WebUpload] = []

    var lane: String { WebPlace.channel(session) }
}
