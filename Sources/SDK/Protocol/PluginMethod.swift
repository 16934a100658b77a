/// A request method with its params and result types, so both sides of the link agree on them.
/// Use the static members: `.chatMessage`, `.formatFinal`, …
public struct RequestMethod<Params: WirePayload, Result: WirePayload>: Sendable {
    /// The wire name.
    public let name: MethodName
}

/// A notification method with its params type.
public struct NotifyMethod<Params: WirePayload>: Sendable {
    /// The wire name.
    public let name: MethodName
}

/// An acknowledged-delivery method with its params type.
public struct DeliverMethod<Params: WirePayload>: Sendable {
    /// The wire name.
    public let name: MethodName
}

extension RequestMethod where Params == NoPayload, Result == JSONValue {
    /// `status`: `{}` → any object.
    public static var status: Self { .init(name: .status) }
    /// `relay.status` (plugin → supervisor): `{}` → the daemon's status.
    public static var relayStatus: Self { .init(name: .relayStatus) }
}

extension RequestMethod where Params == FormatRunParams, Result == FormatLiveResult {
    /// `format.live`.
    public static var formatLive: Self { .init(name: .formatLive) }
}

extension RequestMethod where Params == FormatRunParams, Result == FormatFinalResult {
    /// `format.final`.
    public static var formatFinal: Self { .init(name: .formatFinal) }
}

extension RequestMethod where Params == FormatNoticeParams, Result == FormattedText {
    /// `format.notice`.
    public static var formatNotice: Self { .init(name: .formatNotice) }
}

extension RequestMethod where Params == FormattedText, Result == FormattedText {
    /// `format.redact`.
    public static var formatRedact: Self { .init(name: .formatRedact) }
}

extension RequestMethod where Params == ChatMessageParams, Result == ChatMessageResult {
    /// `chat.message`.
    public static var chatMessage: Self { .init(name: .chatMessage) }
}

extension RequestMethod where Params == ChatCommandParams, Result == Reply {
    /// `chat.command`.
    public static var chatCommand: Self { .init(name: .chatCommand) }
}

extension RequestMethod where Params == ChatAnswerParams, Result == Reply {
    /// `chat.answer`.
    public static var chatAnswer: Self { .init(name: .chatAnswer) }
}

extension RequestMethod where Params == ChatBindParams, Result == Reply {
    /// `chat.bind`.
    public static var chatBind: Self { .init(name: .chatBind) }
}

extension RequestMethod where Params == ChatThreadParams, Result == Target {
    /// `chat.thread`.
    public static var chatThread: Self { .init(name: .chatThread) }
}

extension RequestMethod where Params == ChatPairParams, Result == Reply {
    /// `chat.pair`.
    public static var chatPair: Self { .init(name: .chatPair) }
}

extension RequestMethod where Params == MessengerIdentityParams, Result == MessengerIdentity {
    /// `messenger.identity`.
    public static var messengerIdentity: Self { .init(name: .messengerIdentity) }
}

extension RequestMethod where Params == AttachmentsInboundParams, Result == AttachmentsInboundResult {
    /// `attachments.inbound`.
    public static var attachmentsInbound: Self { .init(name: .attachmentsInbound) }
}

extension RequestMethod where Params == AttachmentsOutboundParams, Result == AttachmentsOutboundResult {
    /// `attachments.outbound`.
    public static var attachmentsOutbound: Self { .init(name: .attachmentsOutbound) }
}

extension DeliverMethod where Params == ChatPostParams {
    /// `chat.post`.
    public static var chatPost: Self { .init(name: .chatPost) }
}

extension DeliverMethod where Params == QuestionClosedParams {
    /// `chat.question.closed`.
    public static var chatQuestionClosed: Self { .init(name: .chatQuestionClosed) }
}

extension DeliverMethod where Params == ChatReactParams {
    /// `chat.react`.
    public static var chatReact: Self { .init(name: .chatReact) }
}

extension DeliverMethod where Params == AllowlistParams {
    /// `chat.allowlist`.
    public static var chatAllowlist: Self { .init(name: .chatAllowlist) }
}

extension NotifyMethod where Params == ChatLiveParams {
    /// `chat.live`.
    public static var chatLive: Self { .init(name: .chatLive) }
}

extension NotifyMethod where Params == ChatTypingParams {
    /// `chat.typing`.
    public static var chatTyping: Self { .init(name: .chatTyping) }
}

extension RequestMethod where Params == ForwardedRequest, Result == JSONValue {
    /// `federation.forward` (supervisor → federation): the result is the other machine's.
    public static var federationForward: Self { .init(name: .federationForward) }
    /// `federation.received` (federation → supervisor): the result goes back to the other machine.
    public static var federationReceived: Self { .init(name: .federationReceived) }
}

extension RequestMethod where Params == ForwardedDelivery, Result == JSONValue {
    /// `federation.deliver` (federation → supervisor): `{}` once it is queued for the messenger.
    public static var federationDeliver: Self { .init(name: .federationDeliver) }
}

extension NotifyMethod where Params == IngressChange {
    /// `federation.ingress` (federation → supervisor).
    public static var federationIngress: Self { .init(name: .federationIngress) }
    /// `messenger.ingress` (supervisor → messenger).
    public static var messengerIngress: Self { .init(name: .messengerIngress) }
}

extension RequestMethod where Params == IngressCursor, Result == CursorAnswer {
    /// `federation.cursor` (supervisor → federation).
    public static var federationCursor: Self { .init(name: .federationCursor) }
    /// `messenger.cursor` (messenger → supervisor).
    public static var messengerCursor: Self { .init(name: .messengerCursor) }
}

extension RequestMethod where Params == MessageClaim, Result == MessageClaim {
    /// `federation.claim`: the claim comes back with `first` set.
    public static var federationClaim: Self { .init(name: .federationClaim) }
}

extension DeliverMethod where Params == ChatPicks {
    /// `federation.pick` (supervisor → federation): a delivery, so a pick made while the plugin
    /// restarts waits in the outbox rather than being dropped.
    public static var federationPick: Self { .init(name: .federationPick) }
}

extension RequestMethod where Params == ChatPicks, Result == ChatPicks {
    /// `federation.picks` (supervisor → federation): asked with no picks, answered with all.
    public static var federationPicks: Self { .init(name: .federationPicks) }
}

extension NotifyMethod where Params == FederationReport {
    /// `federation.machines`.
    public static var federationMachines: Self { .init(name: .federationMachines) }
}

extension NotifyMethod where Params == PresenceParams {
    /// `chat.presence`.
    public static var chatPresence: Self { .init(name: .chatPresence) }
}
