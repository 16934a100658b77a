import Logging
import PiRelaySDK

/// A messenger plugin as an adapter: what it does for each thing the supervisor asks of a
/// messenger (docs/PROTOCOL.md §6, "Supervisor → messenger"). The kit routes the protocol's
/// methods to it, so a messenger holds its service's client, event mapping and buttons, and
/// none of the protocol's dispatch.
public protocol MessengerRelay: Plugin {
    /// Who may talk to the bot; `chat.allowlist` replaces it.
    var allowlist: Allowlist { get }
    var logger: Logger { get }

    /// `chat.post`: shown once however often it is delivered (`delivery` is its id).
    func post(delivery: String, _ params: ChatPostParams) async throws
    /// `chat.question.closed`: the question's message shows how it ended, without controls.
    func closeQuestion(_ params: QuestionClosedParams) async throws
    /// `chat.react`. The default refuses it as unknown, for a service without reactions.
    func react(_ params: ChatReactParams) async throws
    /// `chat.thread`: opens a thread (or topic) and answers where it is.
    func openThread(_ params: ChatThreadParams) async throws -> Target
    /// `messenger.identity`: who the bot is, asked of the service.
    func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity
    /// `status`: the plugin's own figures.
    func status() async -> JSONValue
    /// `chat.live`: a run's newest view, to show in place.
    func showLive(_ update: ChatLiveParams) async
    /// `chat.typing`. The default shows nothing, for a service without an indicator.
    func showTyping(_ target: Target) async
    /// `chat.presence`. The default shows nothing, for a service without a status line.
    func showPresence(_ text: String) async
    /// `messenger.ingress`: take inbound traffic now, or stand by (a federation's lease). The
    /// default logs it, for a messenger that takes its traffic regardless.
    func ingressChanged(_ change: IngressChange) async
    /// `chat.allowlist` has replaced `allowlist`: a user may have been revoked. The default does
    /// nothing more, for a messenger that checks the allowlist at each message.
    func allowlistChanged() async
}

extension MessengerRelay {
    public func react(_ params: ChatReactParams) async throws {
        throw RemoteError.methodNotFound(MethodName.chatReact.rawValue)
    }

    public func showTyping(_ target: Target) async {}

    public func showPresence(_ text: String) async {}

    public func allowlistChanged() async {}

    public func ingressChanged(_ change: IngressChange) async {
        logger.warning("messenger.ingress (\(change.active ? "take" : "stand by")) ignored: this messenger does not share its token yet")
    }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        switch request.name {
        case .chatPost:
            try await post(delivery: request.id, try request.params(ChatPostParams.self))
            return [:]
        case .chatQuestionClosed:
            try await closeQuestion(try request.params(QuestionClosedParams.self))
            return [:]
        case .chatReact:
            try await react(try request.params(ChatReactParams.self))
            return [:]
        case .chatThread:
            return try await openThread(try request.params(ChatThreadParams.self)).json
        case .chatAllowlist:
            allowlist.replace(with: try request.params(AllowlistParams.self))
            logger.info("the allowlist now has \(allowlist.count) user(s)")
            await allowlistChanged()
            return [:]
        case .messengerIdentity:
            return try await identify(try request.params(MessengerIdentityParams.self)).json
        case .status:
            return await status()
        default:
            throw RemoteError.methodNotFound(request.method)
        }
    }

    public func handle(notification method: String, params: JSONValue) async {
        switch MethodName(rawValue: method) {
        case .chatLive:
            guard let update = try? ChatLiveParams(json: params) else {
                logger.debug("chat.live without a target or runId ignored")
                return
            }
            await showLive(update)
        case .chatTyping:
            guard let target = (try? ChatTypingParams(json: params))?.target else { return }
            await showTyping(target)
        case .chatPresence:
            await showPresence((try? PresenceParams(json: params))?.text ?? "")
        case .messengerIngress:
            guard let change = try? IngressChange(json: params) else { return }
            await ingressChanged(change)
        default:
            break
        }
    }
}
