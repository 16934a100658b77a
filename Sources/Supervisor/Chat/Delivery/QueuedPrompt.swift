import PiRelaySDK

/// A chat prompt sent while the agent was busy, waiting for pi to take it (`message_start` of a
/// user message with the same text), so its `⏳` reaction can come off.
struct QueuedPrompt: Sendable {
    /// The text exactly as pi was sent it.
    let text: String
    let messenger: String
    let target: Target
    let messageID: String
    /// pi took it before the chat was answered: there is no reaction to take off.
    var taken = false
    /// The chat was answered with a reaction, which comes off when pi takes the prompt.
    var reacted = false
}
