/// How a rendered markdown document becomes messages in one messenger's dialect.
///
/// The run renderer always writes markdown (it is what the tool lines, notices and the `.md`
/// file are made of); a markup decides how that document is shown: as it is for Discord, or
/// converted for a messenger with a markup of its own. Everything that measures or cuts a message
/// goes through it, because only the dialect knows what a character of a message is (Discord
/// counts UTF-16 units of the source, Telegram visible code points after its HTML is parsed).
protocol Markup: Sendable {
    /// The document as messages of at most `limit` characters, numbered `[i/n]` when there is
    /// more than one and `numbered`.
    func split(_ document: String, limit: Int, numbered: Bool) -> [String]

    /// The live view of a run still streaming: the finished chunks of `settled` (which no later
    /// state of the run can change) and the rest of `current` as one message to keep editing.
    /// `settled` is a prefix of `current` ending at a line boundary.
    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String)

    /// A short markdown text (a notice, a preview's note) as one message, unsplit.
    func rendered(_ markdown: String) -> String

    /// Plain text (no markup at all) made safe to put into a message.
    func escaped(_ plain: String) -> String

    /// The length of a message as the messenger counts it against its limit.
    func length(_ message: String) -> Int
}
