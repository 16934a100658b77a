/// What one run shows in one chat while its answer streams, and which write comes next: the
/// bookkeeping a messenger plugin needs to stream `chat.live` views by editing messages. Pure:
/// the plugin does the sending and the saving.
///
/// Message `i` shows finished chunk `i`; the message after the last chunk shows the live tail.
/// An edit is recorded as pending before it goes out and as shown once the messenger took it, so
/// a plugin killed in between knows the message shows one of the two texts. A messenger that
/// cannot read a message back (Telegram, Slack) and refuses an edit that changes nothing would
/// otherwise repeat it: a pending text is not written again while streaming (the next, longer
/// view settles it); the final answer does write it again (`Message.certainlyShows`), since an
/// answer left unshown is worse than one refused edit. `same` says when two texts show alike
/// (Telegram compares what its HTML renders to).
public struct LiveRun<MessageID: Codable & Sendable & Equatable>: Sendable {
    /// A message the run put in the chat, as saved.
    public struct Message: Codable, Sendable, Equatable {
        /// The messenger's id for it.
        public var id: MessageID
        /// What the messenger last confirmed it shows.
        public var text: String
        /// An edit sent and not yet confirmed.
        public var pending: String?

        /// A message showing `text`, with no edit in doubt.
        public init(id: MessageID, text: String, pending: String? = nil) {
            self.id = id
            self.text = text
            self.pending = pending
        }

        /// Whether it shows `text` for sure: confirmed, with no edit in doubt.
        public func certainlyShows(_ text: String, same: (String, String) -> Bool = (==)) -> Bool {
            pending == nil && same(self.text, text)
        }

        /// Whether streaming may leave it as it is for `text`: what it shows, or the edit in
        /// doubt (written again it could only be refused as not modified).
        public func mayShow(_ text: String, same: (String, String) -> Bool = (==)) -> Bool {
            pending.map { same($0, text) } ?? same(self.text, text)
        }
    }

    /// The next write to make.
    public enum Write: Equatable {
        /// Post `text` as message `index` (always the next one).
        case send(index: Int, text: String)
        /// Change message `index` to `text`.
        case edit(index: Int, messageID: MessageID, text: String)
    }

    /// The run's messages, in order.
    public var messages: [Message]
    /// The newest view taken.
    public private(set) var rev = 0
    /// The newest view's finished chunks.
    public private(set) var chunks: [String] = []
    /// The newest view's live tail.
    public private(set) var tail = ""
    /// The final answer has taken over: no more writes.
    public var finished = false
    private let same: @Sendable (String, String) -> Bool

    /// A run that already shows `messages` (an earlier process's, as saved).
    public init(messages: [Message] = [], same: @escaping @Sendable (String, String) -> Bool = { $0 == $1 }) {
        self.messages = messages
        self.same = same
    }

    /// A newer view; false (and nothing changes) when it is stale or the run is finished.
    public mutating func take(rev: Int, chunks: [String], tail: String) -> Bool {
        guard !finished, rev > self.rev else { return false }
        self.rev = rev
        self.chunks = chunks
        self.tail = tail
        return true
    }

    /// The first message that does not show what it should, in order: earlier chunks first,
    /// then the tail (never a blank one: messengers refuse an empty text).
    public func nextWrite() -> Write? {
        guard !finished else { return nil }
        var targets = chunks
        if !tail.allSatisfy(\.isWhitespace) { targets.append(tail) }
        for (index, text) in targets.enumerated() {
            guard index < messages.count else { return .send(index: index, text: text) }
            if !messages[index].mayShow(text, same: same) { return .edit(index: index, messageID: messages[index].id, text: text) }
        }
        return nil
    }

    /// Before an edit goes out.
    public mutating func editing(_ index: Int, to text: String) {
        messages[index].pending = text
    }

    /// The messenger took the edit; `id` when it now goes by another (an edit that had to be
    /// posted anew).
    public mutating func edited(_ index: Int, to text: String, id: MessageID? = nil) {
        messages[index].text = text
        messages[index].pending = nil
        if let id { messages[index].id = id }
    }

    /// The messenger took a new message: it is message `index` (always the next one).
    public mutating func sent(_ index: Int, id: MessageID, text: String) {
        precondition(index == messages.count, "messages are sent in order")
        messages.append(Message(id: id, text: text))
    }
}
