import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// pi-relay-telegram: relays pi sessions to Telegram. Telegram's side is the Bot API: long
/// polling in, HTML messages out; the supervisor's side is the messenger contract of protocol §6.
public struct TelegramRelay: CoreMessengerRelay {
    public static let manifest = PluginManifest(
        name: "telegram", version: "0.1.0", roles: ["messenger"],
        // A private chat takes about one write a second (SendPacer), edits included.
        limits: ["maxMessageLength": TelegramText.limit, "maxUploadBytes": 50 << 20, "liveIntervalMs": 1000],
        summary: "relays pi sessions to Telegram: private chats, groups and forum topics, buttons, live output",
        dialect: .telegramHTML, commands: CommandMenu.entries,
        config: TelegramConfig.schema, setup: TelegramConfig.setup)

    let config: TelegramConfig
    /// The log, the state folder, the allowlist and the ingress gate.
    public let core: MessengerCore
    /// Out: the Bot API, each chat paced to about a write a second.
    let api: BotAPI
    /// In: long polling's messages and button presses.
    let intake: Intake
    let presses: Presses
    /// Out: deliveries, runs edited in place, "typing…" while they stream.
    let deliveries: Deliveries
    let live: LiveMessages
    let typing: Typing
    /// Forum topics opened for sessions, chats that blocked the bot, open questions' messages.
    let topics: Topics
    let blocked: BlockedChats
    let questions: QuestionMessages
    /// pi-relayd's side, for the poller's hand-overs.
    let connection: PluginConnection

    public init(context: PluginContext) async throws {
        let (config, core) = try MessengerCore.load(TelegramConfig.self, context: context, messenger: "telegram")
        (self.config, self.core) = (config, core)
        let (settings, logger, store, allowlist) = (config.settings, core.logger, core.store, core.allowlist)
        connection = context.connection
        let migrations = Migrations(store: store)
        blocked = BlockedChats(logger: logger)
        api = BotAPI(
            base: settings.apiBase, token: config.token, proxy: settings.proxy, loop: TransferLoop(), logger: logger, store: store,
            migrations: migrations, blocked: blocked, tokenRefusal: core.tokenRefusal, tokenEnv: config.tokenEnv)
        let poster = Poster(api: api, blocked: blocked, migrations: migrations)
        let tokens = ButtonTokens(store: store)
        let keyboard = Keyboard(tokens: tokens)
        let forums = ForumChats()
        topics = Topics(api: api, poster: poster, connection: context.connection, forums: forums, logger: logger)
        var groups = Set(config.chats.map(\.id))
        for binding in context.welcome.bindings where binding.channel.hasPrefix("-") { groups.insert(binding.channel) }
        let handoff = Handoff(api: api, poster: poster, keyboard: keyboard, topics: topics, spoolDir: context.spoolDir, logger: logger)
        let inbox = Inbox(
            adapter: handoff, receiver: context.connection, store: store, empty: InboxRecord(cursor: 0),
            unsavedNote: "; updates stay unconfirmed at Telegram until it is saved", credentialsRefused: core.credentialsRefused, logger: logger)
        intake = Intake(
            inbox: inbox, handoff: handoff, allowlist: allowlist, forums: forums, blocked: blocked, migrations: migrations,
            policy: ListenPolicy(
                botID: "", botUsername: "", requireMention: settings.requireMention, groups: groups, sharedRooms: settings.sharedRooms),
            logger: logger)
        presses = Presses(api: api, tokens: tokens, allowlist: allowlist, connection: context.connection, handoff: handoff, logger: logger)
        typing = Typing(api: api, migrations: migrations, blocked: blocked, logger: logger)
        live = LiveMessages(
            writer: poster, store: store, logger: logger, same: TelegramText.sameMessage, onView: { [typing] in await typing.keep($0) })
        questions = QuestionMessages(store: store)
        deliveries = Deliveries(
            poster: poster, live: live, typing: typing, keyboard: keyboard, questions: questions, blocked: blocked,
            parts: DeliveryParts(store: store), migrations: migrations, connection: context.connection, logger: logger)
        logger.info("\(settings.starting(places: "\(config.chats.count) chat(s)", allowed: allowlist.count, rooms: "groups"))")
    }

    public func run() async throws {
        let me = try await core.signedIn { try await signIn() }
        let username = me["username"]?.stringValue ?? ""
        await intake.learn(bot: TelegramMessage.id(me["id"]) ?? "", username: username)
        logger.info("signed in as @\(username)")
        // Polling and a webhook exclude each other; pending updates are kept (no drop).
        do { try await api.call("deleteWebhook", ["drop_pending_updates": false]) } catch {
            logger.warning("deleteWebhook: \(error)")
        }
        await intake.inbox.resumePending()
        let menu = CommandMenu(api: api, logger: logger)
        let poller = Poller(
            api: api, intake: intake, presses: presses, pollTimeoutSeconds: config.pollTimeoutSeconds, gate: core.ingress, connection: connection,
            logger: logger)
        // A write Telegram refuses the token for ends the plugin at once, not at the poller's
        // next getUpdates (up to a poll's length later, or never on a machine that does not poll).
        try await core.tokenRefusal.ending {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await self.deliveries.showClosings() }
                group.addTask {
                    // The "/" menu beside the poller, not before it: a 429 on setMyCommands asks
                    // for minutes after a few restarts, and nobody would be heard meanwhile.
                    async let registered: Void = menu.register()
                    try await poller.run()
                    await registered
                }
                // The poller's end is the plugin's; the closings stop with it.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    public func post(delivery: String, _ params: ChatPostParams) async throws {
        if let place = Place(params.target) { await intake.bound(place.chatID) }
        try await deliveries.post(delivery: delivery, params)
    }

    public func closeQuestion(_ params: QuestionClosedParams) async throws {
        try await deliveries.questionClosed(params)
    }

    public func openThread(_ params: ChatThreadParams) async throws -> Target {
        try await topics.open(params)
    }

    public func showLive(_ update: ChatLiveParams) async {
        await live.show(update, at: Place(update.target))
    }

    public func ingressChanged(_ change: IngressChange) async {
        if core.ingress.take(change, logger: logger) { await intake.inbox.resumePending() }
    }

    public func showTyping(_ target: Target) async {
        guard let place = Place(target) else { return }
        await typing.keep(place)
    }

    public func status() async -> JSONValue {
        let counters = api.tally.counts
        return await core.status([
            "api": counters.json,
            "relayed": JSONValue(await intake.inbox.relayed), "refused": JSONValue(await intake.inbox.refused),
            "blockedChats": .object((await blocked.summary).mapValues { .string($0) }),
            "liveRuns": JSONValue(await live.activeCount),
            "typing": JSONValue(await typing.activeCount),
            "openQuestions": JSONValue(await questions.count),
        ])
    }
}
