/// What one run shows in one chat while its answer streams, and which write comes next. Pure:
/// `LiveMessages` does the sending and the saving.
///
/// Message `i` shows finished chunk `i`; the message after the last chunk shows the live tail.
/// An edit is recorded as pending before it goes out and as shown once Telegram took it, so a
/// plugin killed in between knows the message shows one of the two texts. Telegram has no way to
/// read a message back, and an edit to the text a message already shows is refused as "not
/// modified", so a pending text is not written again while streaming (the next, longer view
/// settles it); the final answer does write it again (`LiveRun.Message.certainlyShows`), since
/// an answer left unshown is worse than one refused edit.
struct LiveRun: Sendable {
    /// A message the run put in the chat, as saved.
    struct Message: Codable, Sendable, Equatable {
        var id: Int
        /// What Telegram last confirmed it shows.
        var text: String
        /// An edit sent and not yet confirmed.
        var pending: String?

        /// Whether it shows `html` for sure: confirmed, with no edit in doubt.
        func certainlyShows(_ html: String) -> Bool {
            pending == nil && TelegramText.sameMessage(text, html)
        }

        /// Whether streaming may leave it as it is for `html`: what it shows, or the edit in
        /// doubt (written again it could only be refused as not modified).
        func mayShow(_ html: String) -> Bool {
            pending.map { TelegramText.sameMessage($0, html) } ?? TelegramText.sameMessage(text, html)
        }
    }

    enum Write: Equatable {
        case send(index: Int, text: String)
        case edit(index: Int, messageID: Int, text: String)
    }

    var messages: [Message]
    var rev = 0
    private(set) var chunks: [String] = []
    private(set) var tail = ""
    var finished = false

    init(messages: [Message] = []) {
        self.messages = messages
    }

    /// A newer view; false (and nothing changes) when it is stale or the run is finished.
    mutating func take(rev: Int, chunks: [String], tail: String) -> Bool {
        guard !finished, rev > self.rev else { return false }
        self.rev = rev
        self.chunks = chunks
        self.tail = tail
        return true
    }

    /// The first message that does not show what it should, in order: earlier chunks first,
    /// then the tail (never an empty one: Telegram refuses an empty text).
    func nextWrite() -> Write? {
        guard !finished else { return nil }
        var targets = chunks
        if !tail.trimmed().isEmpty { targets.append(tail) }
        for (index, text) in targets.enumerated() {
            guard index < messages.count else { return .send(index: index, text: text) }
            if !messages[index].mayShow(text) { return .edit(index: index, messageID: messages[index].id, text: text) }
        }
        return nil
    }

    /// Before an edit goes out.
    mutating func editing(_ index: Int, to text: String) {
        messages[index].pending = text
    }

    /// Telegram took the edit.
    mutating func edited(_ index: Int, to text: String) {
        messages[index].text = text
        messages[index].pending = nil
    }

    /// Telegram took a new message: it is message `index` (always the next one).
    mutating func sent(_ index: Int, id: Int, text: String) {
        precondition(index == messages.count, "messages are sent in order")
        messages.append(Message(id: id, text: text))
    }
}
