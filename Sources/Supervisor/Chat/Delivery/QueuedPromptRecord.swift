import PiRelaySDK

/// A chat prompt that waits under a `⏳` in a spawned pi's queue, as `state/queued-prompts.json`
/// keeps it. pi keeps its queue in memory only, so a daemon killed with prompts in it (its pi goes
/// too) leaves them unrun: the next start takes each `⏳` off and tells its chat, as a graceful
/// stop does, instead of leaving the hourglass for good.
package struct QueuedPromptRecord: Codable, Sendable, Equatable {
    package var sessionID: String
    package var messenger: String
    package var channel: String
    package var thread: String?
    package var messageID: String
    package var text: String

    package init(_ prompt: QueuedPrompt, in sessionID: String) {
        self.sessionID = sessionID
        messenger = prompt.messenger
        channel = prompt.target.channel
        thread = prompt.target.thread
        messageID = prompt.messageID
        text = prompt.text
    }

    /// The prompt as it waited, its reaction shown.
    package var prompt: QueuedPrompt {
        var prompt = QueuedPrompt(text: text, messenger: messenger, target: Target(channel: channel, thread: thread), messageID: messageID)
        prompt.reacted = true
        prompt.spawned = true
        return prompt
    }
}
