import PiRelaySDK

/// What the extension says of chat prompts at a session switch (docs/EXTENSION.md,
/// `prompts_dropped` and `prompts_delivered`): `/new` empties pi's own queues without a word,
/// `/resume` delivers them into the resumed conversation (the pi extension spec's §11 trap 2),
/// and prompts the extension still held were sent on or dropped as the chats answered.
package struct TerminalPromptNews: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// `prompts_dropped`: these will never run.
        case dropped = "prompts_dropped"
        /// `prompts_delivered`: pi had them queued; they run in the conversation it resumed (or,
        /// for `gate`, after the run).
        case delivered = "prompts_delivered"
    }

    /// Why they were dropped or delivered.
    package enum Reason: String, Sendable {
        /// `/new` in the terminal emptied pi's queues (a prompt pi was starting runs in the new conversation).
        case new
        /// `/resume` in the terminal: pi's queues go to the resumed conversation.
        case resume
        /// A chat answered Drop to the question about the prompts held at a switch.
        case answered
        /// Nobody answered that question in time.
        case unanswered
        /// pi is reloading or quitting (`/reload`, `/quit`): a reloaded extension starts empty.
        case shutdown
        /// Steers that waited in the extension until an approval was pending: they went to pi as
        /// follow-ups, since a steer would skip the calls already approved (§11 trap 11).
        case gate
        /// A stop: pi's abort keeps the prompts it had queued, and its next run starts with them.
        case stop
        /// A compaction ended the run (`/compact` mid-run, §11 trap 1): pi kept the prompts in its
        /// queue (delivered), or had taken them into the run it aborted, unsaved (dropped).
        case compaction
    }

    package static let types: Set<String> = [Kind.dropped.rawValue, Kind.delivered.rawValue]

    package let kind: Kind
    package let reason: Reason
    package let texts: [String]

    /// Nil for a line that is not one of these, or that names no prompt.
    package init?(type: String, _ message: JSONValue) {
        guard let kind = Kind(rawValue: type), let reason = message["reason"]?.stringValue.flatMap(Reason.init(rawValue:)) else { return nil }
        let texts = (message["texts"]?.arrayValue ?? []).compactMap(\.stringValue)
        guard !texts.isEmpty else { return nil }
        self.kind = kind
        self.reason = reason
        self.texts = texts
    }

    /// The chats' notice kind: a dropped prompt is worth a warning.
    package var noticeKind: String { kind == .dropped ? "warning" : "info" }

    /// The notice, with each prompt's start so the chat knows which.
    package var text: String {
        let count = texts.count == 1 ? "1 chat prompt" : "\(texts.count) chat prompts"
        let list = texts.map { "“\(Self.preview($0))”" }.joined(separator: ", ")
        switch (kind, reason) {
        case (.delivered, .gate):
            let steers = texts.count == 1 ? "1 steer" : "\(texts.count) steers"
            return "An approval is pending: \(steers) went to pi as a follow-up instead, so the calls already approved still run: \(list)."
        case (.delivered, .stop):
            let it = texts.count == 1 ? "it" : "them"
            return "The run was stopped, but pi keeps \(count) it had already queued, and runs \(it) with the next prompt: \(list)."
        case (.delivered, .compaction):
            let it = texts.count == 1 ? "it" : "them"
            return "A compaction ended the run, but pi keeps \(count) it had already queued, and runs \(it) with the next prompt: \(list)."
        case (.delivered, .new):
            return "The terminal started a new conversation (/new): \(count) pi was starting will run there: \(list)."
        case (.delivered, _):
            return "The terminal resumed another conversation (/resume): \(count) pi had already queued will run there: \(list)."
        case (.dropped, .new), (.dropped, .resume):
            return "The terminal started a new conversation (/new): pi dropped \(count) it had queued: \(list). Send again what should still run."
        case (.dropped, .answered):
            return "Dropped, as asked: \(count) \(texts.count == 1 ? "was" : "were") not sent to the terminal's new conversation: \(list)."
        case (.dropped, .unanswered):
            return "Nobody said whether to send them to the terminal's new conversation: \(count) dropped: \(list)."
        case (.dropped, .compaction):
            return
                "A compaction ended the run after pi had taken \(count) into it; the compaction left \(texts.count == 1 ? "it" : "them") out, so \(texts.count == 1 ? "it does" : "they do") not run: \(list). Send again what should still run."
        case (.dropped, .stop):
            return "The run was stopped: \(count) not sent: \(list)."
        case (.dropped, .shutdown), (.dropped, .gate):
            return "The terminal's pi is reloading or quitting (/reload, /quit): \(count) not sent: \(list). Send again what should still run."
        }
    }

    private static func preview(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }
}
