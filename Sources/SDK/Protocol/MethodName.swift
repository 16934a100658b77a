/// Every method of docs/PROTOCOL.md §6, by its wire name.
public enum MethodName: String, Sendable, CaseIterable {
    /// Any plugin: describe your own state.
    case status
    /// Formatter: render a run still going.
    case formatLive = "format.live"
    /// Formatter: render a finished run.
    case formatFinal = "format.final"
    /// Formatter: render a notice line.
    case formatNotice = "format.notice"
    /// Formatter: mask secret-looking text.
    case formatRedact = "format.redact"
    /// Messenger → supervisor: a user wrote.
    case chatMessage = "chat.message"
    /// Messenger → supervisor: a command or a button press.
    case chatCommand = "chat.command"
    /// Messenger → supervisor: an answer to a question.
    case chatAnswer = "chat.answer"
    /// Messenger → supervisor: bind a chat to a session.
    case chatBind = "chat.bind"
    /// Supervisor → messenger: post something (acknowledged).
    case chatPost = "chat.post"
    /// Supervisor → messenger: a run's live view (droppable).
    case chatLive = "chat.live"
    /// Supervisor → messenger: the agent is working.
    case chatTyping = "chat.typing"
    /// Supervisor → messenger: add or remove a reaction on a user's message (acknowledged).
    case chatReact = "chat.react"
    /// Supervisor → messenger: a question ended (acknowledged).
    case chatQuestionClosed = "chat.question.closed"
    /// Supervisor → messenger: open a thread for a new session.
    case chatThread = "chat.thread"
    /// Supervisor → messenger: the bot's status line.
    case chatPresence = "chat.presence"
    /// Messenger → supervisor: a user claims a pairing code (sent for users not on the allowlist).
    case chatPair = "chat.pair"
    /// Supervisor → messenger: the allowlist changed (a user paired or revoked).
    case chatAllowlist = "chat.allowlist"
    /// Supervisor or CLI → messenger: who the bot is, checked against the service.
    case messengerIdentity = "messenger.identity"
    /// Supervisor → attachments: files in.
    case attachmentsInbound = "attachments.inbound"
    /// Supervisor → attachments: a file out.
    case attachmentsOutbound = "attachments.outbound"
}
