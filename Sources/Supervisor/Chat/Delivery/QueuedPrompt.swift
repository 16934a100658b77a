import PiRelaySDK

/// A chat prompt sent while the agent was busy, waiting for pi to take it (`message_start` of a
/// user message with the same text), so its `⏳` reaction can come off.
package struct QueuedPrompt: Sendable {
    /// The text exactly as pi was sent it.
    package let text: String
    package let messenger: String
    package let target: Target
    package let messageID: String
    /// pi took it before the chat was answered: there is no reaction to take off.
    package var taken = false
    /// The chat was answered with a reaction, which comes off when pi takes the prompt.
    package var reacted = false
    /// The chat was told a stop left it in pi's queue: said once, not at every later stop.
    package var keptAfterStop = false
    /// In a pi this daemon started, whose queue a daemon killed takes along (a terminal's pi
    /// keeps its own): kept in `state/queued-prompts.json` while it waits.
    package var spawned = false
}
