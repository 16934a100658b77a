import DiscordPayloads
import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK

/// pi-relay-discord: relays pi sessions to Discord. Discord's side is the gateway (events in)
/// and REST (messages out); the supervisor's side is the messenger contract of protocol §6.
public struct DiscordRelay: CoreMessengerRelay {
    public static let manifest = PluginManifest(
        name: "discord", version: "0.1.0", roles: ["messenger"],
        limits: [
            "maxMessageLength": Poster.limit, "maxUploadBytes": 10_485_760,
            // A channel takes about five edits in five seconds (discord-api.md §6): the supervisor
            // sends live views no faster than this, and the send queue keeps the newest.
            "liveIntervalMs": 800,
        ],
        summary: "relays pi sessions to Discord: DMs, channels and threads, slash commands, buttons, live output",
        commands: SlashCommand.all.map(\.menuEntry),
        config: DiscordConfig.schema, setup: DiscordConfig.setup)

    let config: DiscordConfig
    /// The log, the state folder, the allowlist and the ingress gate.
    public let core: MessengerCore
    /// Out: REST, paced by Discord's rate-limit buckets.
    let rest: DiscordREST
    /// In: the gateway's events; where the bot listens, learned as they come; messages judged
    /// and handed over; slash commands and clicks answered within Discord's 3 s.
    let gateway: Gateway
    let listening: Listening
    let intake: Intake
    let interactions: Interactions
    /// Out: deliveries, runs edited in place, "typing…" while they stream.
    let deliveries: Deliveries
    let live: LiveMessages
    let typing: Typing
    /// Open questions, the slash commands registered once a process, threads opened for
    /// sessions, and who the bot is.
    let questions: Questions
    let registration: CommandRegistration
    let threads: ThreadOpener
    let identity: BotIdentity

    public init(context: PluginContext) async throws {
        let (config, core) = try MessengerCore.load(DiscordConfig.self, context: context, messenger: "discord")
        (self.config, self.core) = (config, core)
        let (settings, logger, store, allowlist) = (config.settings, core.logger, core.store, core.allowlist)
        rest = DiscordREST(
            base: settings.apiBase, token: config.token, proxy: settings.proxy, loop: TransferLoop(), logger: logger,
            holdsPath: store.path(RateLimitHold.file), tokenRefusal: core.tokenRefusal)
        listening = Listening(
            channels: config.channels, requireMention: settings.requireMention, sharedRooms: settings.sharedRooms, answersDMs: config.answersDMs,
            store: store, welcome: context.welcome)
        identity = BotIdentity(rest: rest, guilds: config.guilds)
        let threads = ThreadOpener(rest: rest, connection: context.connection, listening: listening, logger: logger)
        self.threads = threads
        let poster = Poster(rest: rest)
        let inbox = Inbox(
            adapter: Handoff(poster: poster, threads: threads, logger: logger), receiver: context.connection, store: store,
            empty: InboxRecord(), credentialsRefused: core.credentialsRefused, logger: logger)
        gateway = Gateway(
            rest: rest, token: config.token, store: store, proxy: settings.proxy, logger: logger, journaled: { await inbox.journalWritten() })
        intake = Intake(inbox: inbox, listening: listening, allowlist: allowlist, poster: poster, gate: core.ingress, logger: logger)
        questions = Questions(store: store)
        interactions = Interactions(
            rest: rest, connection: context.connection, listening: listening, allowlist: allowlist,
            questions: questions, threads: threads, logger: logger)
        typing = Typing(rest: rest, logger: logger)
        let writer = RunWriter(rest: rest, logger: logger)
        await RunsFile.upgrade(store, logger: logger)
        live = LiveMessages(writer: writer, store: store, logger: logger, onView: { [typing] in await typing.keep($0.channel) })
        deliveries = Deliveries(
            rest: rest, live: live, writer: writer, parts: DeliveryParts(store: store), typing: typing, questions: questions, listening: listening,
            maxUploadBytes: Self.manifest.limits["maxUploadBytes"] ?? 10_485_760, logger: logger)
        registration = CommandRegistration(rest: rest, store: store, guilds: config.guilds, logger: logger)
        if let saved = store.load(ResumeState.self, from: ResumeState.file) {
            // A resume sends no READY, and Discord replays missed messages before RESUMED: the
            // bot's identity must be known before the first of them is judged.
            await listening.setIdentity(bot: saved.botUserID, application: saved.applicationID)
        }
        let places = "\(config.channels.count) channel(s), \(config.guilds.count) guild(s)"
        logger.info("\(settings.starting(places: places, allowed: allowlist.count, rooms: "guild channels"))")
    }

    public func run() async throws {
        await intake.inbox.resumePending()
        // Returns on shutdown; throws (and so ends the plugin) on a configuration problem, or a
        // token REST refuses mid-run.
        try await core.tokenRefusal.ending { try await gateway.run { event in await route(event) } }
    }

    private func route(_ event: GatewayEvent) async {
        switch event {
        case .ready(let info):
            await listening.setIdentity(bot: info.botUserID, application: info.applicationID)
            registerCommandsOnce(application: info.applicationID)
        case .resumed:
            if let application = await listening.applicationID { registerCommandsOnce(application: application) }
        case .messageCreate(let message):
            await intake.receive(message)
        case .interactionCreate(let interaction):
            // Shared with other machines, only the holder answers (Discord takes one answer).
            if let why = core.ingress.standBy() {
                logger.debug("interaction \(interaction.id) left to the machine that holds the bot: \(why)")
                return
            }
            // Unstructured on purpose: every interaction has its own 3 s deadline, whatever else is running.
            Task { await interactions.handle(interaction) }
        case .threads(let list):
            await listening.learn(list)
        case .threadDeleted(let id):
            await listening.forget(thread: id)
        case .other:
            break
        }
    }

    public func ingressChanged(_ change: IngressChange) async {
        if core.ingress.take(change, logger: logger) { await intake.inbox.resumePending() }
        await intake.takeOver()
    }

    /// Once per process, on the first READY or RESUMED (a restarted plugin that resumes sees no READY).
    private func registerCommandsOnce(application: String) {
        guard registration.claim() else { return }
        // Unstructured on purpose: registration may wait on rate limits; events keep flowing.
        Task { await registration.register(application: application) }
    }

    public func post(delivery: String, _ params: ChatPostParams) async throws {
        try await deliveries.post(delivery: delivery, params)
    }

    public func closeQuestion(_ params: QuestionClosedParams) async throws {
        try await deliveries.questionClosed(params)
    }

    public func react(_ params: ChatReactParams) async throws {
        try await deliveries.react(params)
    }

    public func openThread(_ params: ChatThreadParams) async throws -> Target {
        try await threads.open(params)
    }

    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        try await identity.check(params)
    }

    public func showLive(_ update: ChatLiveParams) async {
        guard let target = update.target.discord else {
            logger.debug("chat.live without a Discord target ignored")
            return
        }
        await listening.bound(target)
        await live.update(runID: update.runID, place: Place(channel: target.postChannel), rev: update.rev, chunks: update.chunks, tail: update.tail)
    }

    public func showTyping(_ target: Target) async {
        guard let target = target.discord else { return }
        await typing.keep(target.postChannel)
    }

    public func showPresence(_ text: String) async {
        await gateway.setPresence(text)
    }

    public func shutdown() async {
        logger.info("stopping: closing the gateway connection (the session stays resumable)")
        await gateway.stop()
        // Lets the writer put the close frame on the wire before the process exits.
        try? await Task.sleep(for: .milliseconds(300))
    }

    public func status() async -> JSONValue {
        let counters = rest.tally.counts
        return await core.status([
            "gateway": await gateway.status,
            "rest": counters.json,
            "listening": await listening.counts,
            "relayed": JSONValue(await intake.inbox.relayed),
            // Messages kept while another machine holds the bot (a federation).
            "kept": JSONValue(await intake.kept),
            "liveRuns": JSONValue(await live.activeCount),
            "typing": JSONValue(await typing.activeCount),
            "openQuestions": JSONValue(await questions.count),
        ])
    }
}
