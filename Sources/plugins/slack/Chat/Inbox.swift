import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// What Socket Mode brings in. `take` decides and journals, which takes milliseconds, and
/// returns so the envelope is acknowledged; the hand-over to the supervisor (`chat.message`,
/// files downloaded first) and its reply run after, in the conversation's lane. An event seen
/// before (Slack's retry, or the second event of a channel mention) is skipped; the ids are
/// saved, so a restarted plugin still knows them.
actor Inbox {
    private let api: WebAPI
    private let poster: Poster
    private let allowlist: Allowlist
    private let connection: PluginConnection
    private let threads: Threads
    private let replies: Replies
    private let progress: Progress
    private let clicks: Clicks
    private let store: StateStore
    private let spoolDir: String
    private let logger: Logger
    private let lanes = Lanes()
    private var journal: InboxRecord
    private var policy: ListenPolicy
    private var names: [String: String] = [:]
    /// "Not authorized.": once per 10 minutes per user and conversation.
    private var throttle = RefusalThrottle()
    private(set) var relayed = 0
    private(set) var refused = 0
    private(set) var duplicates = 0

    static let maxDownloadBytes = 20 << 20

    init(
        api: WebAPI, poster: Poster, allowlist: Allowlist, connection: PluginConnection, threads: Threads, replies: Replies, progress: Progress,
        clicks: Clicks,
        store: StateStore, spoolDir: String, policy: ListenPolicy, logger: Logger
    ) {
        self.api = api
        self.poster = poster
        self.allowlist = allowlist
        self.connection = connection
        self.threads = threads
        self.replies = replies
        self.progress = progress
        self.clicks = clicks
        self.store = store
        self.spoolDir = spoolDir
        self.policy = policy
        self.logger = logger
        journal = store.load(InboxRecord.self, from: InboxRecord.file) ?? InboxRecord(events: [])
    }

    func learn(botUser: String) { policy.botUser = botUser }

    /// A channel bound to a session listens without mentions when `requireMention` is off.
    func bound(_ channel: String) { if !channel.hasPrefix("D") { policy.channels.insert(channel) } }

    /// Hands over again what a previous run took in but never finished handing over.
    func resumePending() async {
        guard !journal.pending.isEmpty else { return }
        logger.info("handing over \(journal.pending.count) message(s) taken in before a restart")
        for message in journal.pending {
            await lanes.enqueue(Self.lane(message.chat)) { [self] in await self.relay(message) }
        }
    }

    /// One envelope, before its acknowledgement.
    func take(_ envelope: Envelope) async {
        switch envelope.kind {
        case .eventsAPI: await event(envelope)
        case .slashCommands: await command(envelope.payload)
        case .interactive:
            guard envelope.payload["type"]?.stringValue == "block_actions" else { return }
            let payload = envelope.payload
            // Unstructured on purpose: the click is acknowledged now; its answer comes after.
            Task { await clicks.handle(payload) }
        }
    }

    private func event(_ envelope: Envelope) async {
        let payload = envelope.payload
        guard let eventID = payload["event_id"]?.stringValue else { return }
        guard journal.see(event: eventID) else {
            duplicates += 1
            logger.info("event \(eventID) (retry \(envelope.retryAttempt)) was taken in before; skipped")
            return
        }
        await consider(payload["event"], id: eventID)
        await saveJournal()
    }

    private func consider(_ json: JSONValue?, id eventID: String) async {
        guard let event = json.flatMap(SlackEvent.init(json:)) else { return }
        policy.threads = await threads.opened
        switch policy.decide(event) {
        case .ignore(let why):
            logger.trace("event \(eventID) in \(event.channel) ignored: \(why)")
        case .listen(let chat, let text):
            if let code = ChatPairParams.code(in: text, start: false) {
                await lanes.enqueue(Self.lane(chat)) { [self] in await self.pair(chat, code: code) }
                return
            }
            guard allowlist.permits(chat.user) else {
                await refuse(chat.user, in: Place(channel: chat.channel, thread: chat.thread))
                return
            }
            let pending = PendingMessage(id: event.key, chat: chat, text: text, files: event.files, ts: event.ts)
            if journal.take(pending) {
                await lanes.enqueue(Self.lane(chat)) { [self] in await self.relay(pending) }
            } else {
                duplicates += 1
            }
        }
    }

    /// `/pi WORDS`: the command layer's command `/WORDS` (`/pi` alone is `/help`). Slack does
    /// not say which thread it was typed in, so it counts for the conversation.
    private func command(_ payload: JSONValue) async {
        guard let user = payload["user_id"]?.stringValue, let channel = payload["channel_id"]?.stringValue,
            let trigger = payload["trigger_id"]?.stringValue
        else { return }
        let dm = channel.hasPrefix("D")
        let chat = Chat(
            messenger: "slack", channel: channel, user: user, userName: payload["user_name"]?.stringValue, dm: dm, mentioned: true)
        let words = (payload["text"]?.stringValue ?? "").trimmed()
        let text = words.isEmpty ? "/help" : "/" + ListenPolicy.unescaped(words)
        // `/pi pair CODE` is the one thing taken from users not on the allowlist.
        if let code = ChatPairParams.code(in: text, start: false) {
            await lanes.enqueue(Self.lane(chat)) { [self] in await self.pair(chat, code: code) }
            return
        }
        guard allowlist.permits(user) else {
            await refuse(user, in: Place(channel: channel), always: true)
            return
        }
        let pending = PendingMessage(id: "cmd:" + trigger, chat: chat, text: text, files: [], ts: nil)
        if journal.take(pending) {
            await lanes.enqueue(Self.lane(chat)) { [self] in await self.relay(pending) }
            await saveJournal()
        }
    }

    /// Saved before `take` returns, so the acknowledgement that follows never covers an event
    /// the journal lacks.
    private func saveJournal() async {
        if !(await store.save(journal, to: InboxRecord.file)) { logger.error("cannot save the inbox journal (disk full?)") }
    }

    static func lane(_ chat: Chat) -> String { chat.thread.map { chat.channel + "/" + $0 } ?? chat.channel }

    /// Refused users get "Not authorized." (ephemeral, or in their DM) at most once per 10
    /// minutes per conversation; a refused `/pi` always gets it, since Slack shows the command
    /// failed otherwise.
    private func refuse(_ user: String, in place: Place, always: Bool = false) async {
        refused += 1
        logger.notice("refused user \(user) in \(place.key): not in the allowlist")
        guard throttle.allows(user, in: place.channel, always: always) else { return }
        let poster = poster
        let logger = logger
        await lanes.enqueue(place.key) {
            do {
                if place.channel.hasPrefix("D") {
                    try await poster.send("Not authorized.", to: place)
                } else {
                    try await poster.ephemeral("Not authorized.", to: user, in: place)
                }
            } catch {
                logger.warning("could not answer a refused user: \(error)")
            }
        }
    }

    private func pair(_ chat: Chat, code: String) async {
        logger.info("pairing claim from user \(chat.user) in \(chat.channel)")
        let reply = await connection.pair(chat, code: code)
        await replies.show(reply, to: chat)
    }

    private func relay(_ pending: PendingMessage) async {
        var chat = pending.chat
        let place = Place(channel: chat.channel, thread: chat.thread)
        if chat.userName == nil { chat.userName = await name(of: chat.user) }
        let files = await InboundFiles.fetch(pending.files) { await download($0, message: pending) }
        let params = ChatMessageParams(chat: chat, messageID: pending.id, text: files.prompt(pending.text), attachments: files.attachments)
        let result: ChatMessageResult
        switch await Handover.chatMessage(params, to: connection, logger: logger) {
        case .kept: return
        case .failed(let reason):
            await finished(pending.id)
            await replies.show(Reply(text: reason, ephemeral: true), to: chat)
            return
        case .answered(let answered): result = answered
        }
        await finished(pending.id)
        relayed += 1
        logger.info("message \(pending.id) from \(chat.userName ?? chat.user): \(result.status.rawValue)")
        if let ts = pending.ts, [.prompted, .queued, .steered].contains(result.status) { await progress.started(ts, in: place) }
        guard let reply = result.reply else { return }
        await replies.show(reply, to: chat)
    }

    private func name(of user: String) async -> String? {
        if let known = names[user] { return known }
        guard let answer = try? await api.call("users.info", ["user": .string(user)], form: true) else { return nil }
        let profile = answer["user"]?["profile"]?["display_name"]?.stringValue ?? ""
        let name = profile.isEmpty ? answer["user"]?["name"]?.stringValue : profile
        if let name { names[user] = name }
        return name
    }

    /// A file into the spool folder with the bot token; the supervisor and the attachments
    /// plugin get a path, never the URL or the token.
    private func download(_ file: SlackEvent.File, message: PendingMessage) async -> InboundFiles.Fetched {
        if let size = file.size, size > Self.maxDownloadBytes {
            return .notIncluded(file.name, "it is \(size / 1_048_576) MB, over the relay's 20 MB")
        }
        let safeName = file.name.replacing("/", with: "_")
        let destination = spoolDir + "/slack-\(message.id.replacing(":", with: "-"))-\(file.id)-\(safeName)"
        do {
            try await api.download(file.url, to: destination, maxBytes: Self.maxDownloadBytes)
            return .attached(AttachmentRef(path: destination, filename: file.name, size: file.size, contentType: file.mimetype))
        } catch {
            return .failed(file.name, "\(error)", logger: logger)
        }
    }

    private func finished(_ id: String) async {
        journal.done(id)
        await saveJournal()
    }
}
