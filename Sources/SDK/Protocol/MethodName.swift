/// Every method of docs/PROTOCOL.md §6, by its wire name. A name that is none of them (a plugin's
/// own method, one from a newer pi-relayd) is `other`, so it still reaches whoever handles it.
/// Two methods are equal when their wire names are.
public enum MethodName: Sendable, Hashable, CaseIterable, RawRepresentable {
    /// Any plugin: describe your own state.
    case status
    /// Any plugin → supervisor: the daemon's own status, as `pi-relayd status --json` shows it.
    case relayStatus
    /// Formatter: render a run still going.
    case formatLive
    /// Formatter: render a finished run.
    case formatFinal
    /// Formatter: render a notice line.
    case formatNotice
    /// Formatter: mask secret-looking text.
    case formatRedact
    /// Messenger → supervisor: a user wrote.
    case chatMessage
    /// Messenger → supervisor: a command or a button press.
    case chatCommand
    /// Messenger → supervisor: an answer to a question.
    case chatAnswer
    /// Messenger → supervisor: bind a chat to a session.
    case chatBind
    /// Supervisor → messenger: post something (acknowledged).
    case chatPost
    /// Supervisor → messenger: a run's live view (droppable).
    case chatLive
    /// Supervisor → messenger: the agent is working.
    case chatTyping
    /// Supervisor → messenger: add or remove a reaction on a user's message (acknowledged).
    case chatReact
    /// Supervisor → messenger: a question ended (acknowledged).
    case chatQuestionClosed
    /// Supervisor → messenger: open a thread for a new session.
    case chatThread
    /// Supervisor → messenger: the bot's status line.
    case chatPresence
    /// Messenger → supervisor: a user claims a pairing code (sent for users not on the allowlist).
    case chatPair
    /// Supervisor → messenger: the allowlist changed (a user paired or revoked).
    case chatAllowlist
    /// Supervisor or CLI → messenger: who the bot is, checked against the service.
    case messengerIdentity
    /// Supervisor → attachments: files in.
    case attachmentsInbound
    /// Supervisor → attachments: a file out.
    case attachmentsOutbound
    /// Federation → supervisor: the other machines and their sessions.
    case federationMachines
    /// Supervisor → federation: a chat request for a session on another machine.
    case federationForward
    /// Federation → supervisor: a chat request another machine forwarded here.
    case federationReceived
    /// Federation → supervisor: a post or live view for a chat this machine owns.
    case federationDeliver
    /// Federation → supervisor: this machine takes a messenger's inbound traffic now, or stands by.
    case federationIngress
    /// Supervisor → federation: store a messenger's confirmed position under the lease's epoch.
    case federationCursor
    /// Supervisor → federation: claim an inbound message before acting on it, once across machines.
    case federationClaim
    /// Supervisor → federation: store the machines chats of a shared messenger picked.
    case federationPick
    /// Supervisor → federation: the machines every chat of a shared messenger picked.
    case federationPicks
    /// Supervisor → messenger: take inbound traffic now, or stand by.
    case messengerIngress
    /// Messenger → supervisor: the position confirmed in its inbound stream.
    case messengerCursor
    /// A method the protocol does not name.
    case other(String)

    /// The protocol's methods (not `other`).
    public static let allCases: [MethodName] = [
        .status, .relayStatus, .formatLive, .formatFinal, .formatNotice, .formatRedact, .chatMessage, .chatCommand, .chatAnswer, .chatBind, .chatPost,
        .chatLive,
        .chatTyping, .chatReact, .chatQuestionClosed, .chatThread, .chatPresence, .chatPair, .chatAllowlist, .messengerIdentity, .attachmentsInbound,
        .attachmentsOutbound, .federationMachines, .federationForward, .federationReceived, .federationDeliver,
        .federationIngress, .federationCursor, .federationClaim, .federationPick, .federationPicks, .messengerIngress,
        .messengerCursor,
    ]

    /// Requests pi-relayd sends a plugin once: each acts where it lands (another machine runs a
    /// forwarded command; the platform opens a thread before the plugin can answer), so one in
    /// flight when the plugin ends fails instead of going to the next instance, which would act a
    /// second time (protocol §2, "Requests to a plugin that dies").
    public var isSentOnce: Bool { self == .federationForward || self == .chatThread }

    private static let byName: [String: MethodName] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// The method named `rawValue`: one of the protocol's, else `other`.
    public init(rawValue: String) {
        self = Self.byName[rawValue] ?? .other(rawValue)
    }

    /// The name on the wire.
    public var rawValue: String {
        switch self {
        case .status: "status"
        case .relayStatus: "relay.status"
        case .formatLive: "format.live"
        case .formatFinal: "format.final"
        case .formatNotice: "format.notice"
        case .formatRedact: "format.redact"
        case .chatMessage: "chat.message"
        case .chatCommand: "chat.command"
        case .chatAnswer: "chat.answer"
        case .chatBind: "chat.bind"
        case .chatPost: "chat.post"
        case .chatLive: "chat.live"
        case .chatTyping: "chat.typing"
        case .chatReact: "chat.react"
        case .chatQuestionClosed: "chat.question.closed"
        case .chatThread: "chat.thread"
        case .chatPresence: "chat.presence"
        case .chatPair: "chat.pair"
        case .chatAllowlist: "chat.allowlist"
        case .messengerIdentity: "messenger.identity"
        case .attachmentsInbound: "attachments.inbound"
        case .attachmentsOutbound: "attachments.outbound"
        case .federationMachines: "federation.machines"
        case .federationForward: "federation.forward"
        case .federationReceived: "federation.received"
        case .federationDeliver: "federation.deliver"
        case .federationIngress: "federation.ingress"
        case .federationCursor: "federation.cursor"
        case .federationClaim: "federation.claim"
        case .federationPick: "federation.pick"
        case .federationPicks: "federation.picks"
        case .messengerIngress: "messenger.ingress"
        case .messengerCursor: "messenger.cursor"
        case .other(let name): name
        }
    }
}
