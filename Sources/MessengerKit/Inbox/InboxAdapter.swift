import PiRelaySDK

/// A messenger's part in handing a journaled message to the supervisor: what only it knows how
/// to do (fetch the message's files from its service, show an answer in its chats). Called from
/// the message's lane, so one conversation's messages and answers keep their order.
public protocol InboxAdapter: Sendable {
    associatedtype Message: InboxMessage

    /// What `chat.message` carries for `message`, its files fetched (or said to be missing); nil
    /// when the message can no longer be handed over, and is dropped from the journal.
    func params(for message: Message) async -> ChatMessageParams?
    /// The supervisor refused the message: `reason` is for the user, in their chat.
    func failed(_ message: Message, reason: String) async
    /// The supervisor took the message; `result` says what became of it and may carry a reply.
    /// A reply not shown before a restart is shown after it, as the reply alone (status
    /// `ignored`, no reaction).
    func answered(_ message: Message, _ result: ChatMessageResult) async
}
