import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// pi-relay-slack: relays pi sessions to Slack. Slack's side is Socket Mode in (a WebSocket, no
/// public URL) and the Web API out; the supervisor's side is the messenger contract of protocol §6.
public struct SlackRelay: CoreMessengerRelay {
    public static let manifest = PluginManifest(
        name: "slack", version: "0.1.0", roles: ["messenger"],
        // chat.update is Tier 3 (about 50 a minute for the whole workspace): a live view a
        // second and a half at most, fewer when several runs stream at once (MethodPacer).
        limits: ["maxMessageLength": SlackText.limit, "maxUploadBytes": 50 << 20, "liveIntervalMs": 1500],
        summary: "relays pi sessions to Slack through Socket Mode: DMs, channels and threads, /pi, buttons, live output",
        dialect: .slackMrkdwn,
        config: SlackConfig.schema, setup: SlackConfig.setup)

    let config: SlackConfig
    /// The log, the state folder, the allowlist and the ingress gate.
    public let core: MessengerCore
    /// Out: the Web API, each method paced by its tier.
    let api: WebAPI
    /// In: Socket Mode's events, judged, journaled and handed over.
    let socket: SocketMode
    let intake: Intake
    /// Out: deliveries, runs edited in place, and the ⏳/✅ reactions that stand for typing.
    let deliveries: Deliveries
    let live: LiveMessages
    let progress: Progress
    /// Threads opened for sessions and open questions' messages, both saved.
    let threads: Threads
    let questions: QuestionMessages

    public init(context: PluginContext) async throws {
        let (config, core) = try MessengerCore.load(SlackConfig.self, context: context, messenger: "slack")
        (self.config, self.core) = (config, core)
        let (settings, logger, store, allowlist) = (config.settings, core.logger, core.store, core.allowlist)
        api = WebAPI(
            base: settings.apiBase, botToken: config.botToken, appToken: config.appToken, proxy: settings.proxy, loop: TransferLoop(),
            logger: logger, store: store, tokenRefusal: core.tokenRefusal, botTokenEnv: config.botTokenEnv)
        let poster = Poster(api: api)
        threads = Threads(poster: poster, connection: context.connection, store: store, logger: logger)
        progress = Progress(poster: poster, store: store, logger: logger)
        questions = QuestionMessages(store: store)
        let replies = Replies(poster: poster, threads: threads, logger: logger)
        let clicks = Clicks(
            poster: poster, questions: questions, allowlist: allowlist, connection: context.connection, replies: replies, logger: logger)
        var channels = Set(config.channels.map(\.id))
        for binding in context.welcome.bindings where !binding.channel.hasPrefix("D") { channels.insert(binding.channel) }
        let botDMs = BotDMs(poster: poster)
        let handoff = Handoff(
            api: api, names: UserNames(api: api), replies: replies, progress: progress, botDMs: botDMs, spoolDir: context.spoolDir,
            logger: logger)
        let intake = Intake(
            inbox: Inbox(
                adapter: handoff, receiver: context.connection, store: store, empty: InboxRecord(events: []),
                credentialsRefused: core.credentialsRefused, logger: logger),
            poster: poster, replies: replies, botDMs: botDMs, allowlist: allowlist, threads: threads, clicks: clicks,
            policy: ListenPolicy(
                botUser: "", requireMention: settings.requireMention, channels: channels, threads: [], sharedRooms: settings.sharedRooms),
            logger: logger)
        self.intake = intake
        socket = SocketMode(
            api: api, proxy: settings.proxy, appTokenEnv: config.appTokenEnv, gate: core.ingress, logger: logger,
            take: { await intake.take($0) }, handedOver: { await intake.inbox.handedOver($0, within: $1) })
        live = LiveMessages(writer: poster, store: store, logger: logger)
        deliveries = Deliveries(
            poster: poster, live: live, progress: progress, questions: questions, parts: DeliveryParts(store: store), logger: logger)
        logger.info("\(settings.starting(places: "\(config.channels.count) channel(s)", allowed: allowlist.count, rooms: "channels"))")
    }

    public func run() async throws {
        let me = try await core.signedIn { try await signIn() }
        let user = me["user_id"]?.stringValue ?? ""
        await intake.learn(botUser: user)
        logger.info("signed in as \(me["user"]?.stringValue ?? user) in \(me["team"]?.stringValue ?? "the workspace")")
        await intake.inbox.resumePending()
        try await core.tokenRefusal.ending {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await self.progress.run() }
                group.addTask { await self.deliveries.showClosings() }
                group.addTask { try await self.socket.run() }
                // The socket's end is the plugin's; the reactions and closings stop with it.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    public func post(delivery: String, _ params: ChatPostParams) async throws {
        await intake.bound(params.target.channel)
        try await deliveries.post(delivery: delivery, params)
    }

    public func closeQuestion(_ params: QuestionClosedParams) async throws {
        try await deliveries.questionClosed(params)
    }

    public func openThread(_ params: ChatThreadParams) async throws -> Target {
        try await threads.open(params)
    }

    public func showLive(_ update: ChatLiveParams) async {
        await live.show(update, at: Place(update.target))
    }

    public func ingressChanged(_ change: IngressChange) async {
        if core.ingress.take(change, logger: logger) { await intake.inbox.resumePending() }
    }

    // chat.typing: Slack has no typing indicator for bots; the prompt's ⏳ shows the work.

    public func status() async -> JSONValue {
        let counters = api.tally.counts
        return await core.status([
            "api": counters.json,
            "socket": ["connected": .bool(await socket.connected), "envelopes": JSONValue(await socket.envelopes)],
            "relayed": JSONValue(await intake.inbox.relayed), "refused": JSONValue(await intake.inbox.refused),
            "duplicates": JSONValue(await intake.inbox.duplicates),
            "liveRuns": JSONValue(await live.activeCount), "working": JSONValue(await progress.count),
            "openQuestions": JSONValue(await questions.count),
        ])
    }
}
