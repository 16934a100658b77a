import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Incoming Telegram messages: which are for the relay (ListenPolicy), the allowlist, the journal,
/// the hand-over to the supervisor as `chat.message` (files downloaded first), and its reply.
/// Messages of one chat are handled in order; chats in parallel.
actor Inbox {
    private let api: BotAPI
    private let poster: Poster
    private let allowlist: Allowlist
    private let connection: PluginConnection
    private let topics: Topics
    private let forums: ForumChats
    private let blocked: BlockedChats
    private let migrations: Migrations
    private let keyboard: Keyboard
    private let store: StateStore
    private let spoolDir: String
    private let logger: Logger
    private let lanes = Lanes()
    private var journal: InboxRecord
    private var policy: ListenPolicy
    /// "Not authorized." and a group's pairing answers: once per 10 minutes per user and chat.
    private var throttle = RefusalThrottle()
    private(set) var relayed = 0
    private(set) var refused = 0

    static let maxDownloadBytes = 20 << 20

    init(
        api: BotAPI, poster: Poster, allowlist: Allowlist, connection: PluginConnection, topics: Topics, forums: ForumChats,
        blocked: BlockedChats, migrations: Migrations, keyboard: Keyboard, store: StateStore, spoolDir: String, policy: ListenPolicy, logger: Logger
    ) {
        self.api = api
        self.poster = poster
        self.allowlist = allowlist
        self.connection = connection
        self.topics = topics
        self.forums = forums
        self.blocked = blocked
        self.migrations = migrations
        self.keyboard = keyboard
        self.store = store
        self.spoolDir = spoolDir
        self.policy = policy
        self.logger = logger
        journal = store.load(InboxRecord.self, from: InboxRecord.file) ?? InboxRecord(cursor: 0)
        lastUpdate = journal.cursor ?? 0
    }

    /// Saves the journal; only a saved update may be confirmed.
    private func saveJournal() async {
        if await store.save(journal, to: InboxRecord.file) {
            lastUpdate = journal.cursor ?? 0
        } else {
            logger.error("cannot save the inbox journal (disk full?); updates stay unconfirmed at Telegram until it is saved")
        }
    }

    /// The highest update taken in and saved: the poller confirms up to it. With the disk full
    /// it stays behind, so Telegram keeps the updates the journal could not keep.
    private(set) var lastUpdate = 0

    func learn(bot id: String, username: String) { policy.botID = id; policy.botUsername = username }

    /// A group bound to a session listens without mentions when `requireMention` is off.
    func bound(_ chat: String) { if chat.hasPrefix("-") { policy.groups.insert(chat) } }

    /// Hands over again what a previous run took in but never finished handing over.
    func resumePending() async {
        guard !journal.pending.isEmpty else { return }
        logger.info("handing over \(journal.pending.count) message(s) taken in before a restart")
        for message in journal.pending {
            await lanes.enqueue(message.chat.key) { [self] in await self.relay(message) }
        }
    }

    /// Takes in one update's message. Returns once the message is journaled (or judged not for
    /// us), so the poller may confirm the update.
    func take(update id: Int, _ message: TelegramMessage) async {
        guard id > journal.cursor ?? 0 else {
            logger.info("update \(id) was taken in before (sent again after a restart); skipped")
            return
        }
        await forums.saw(message)
        await blocked.heard(message.chatID)
        if let old = message.migrateFrom {
            await migrations.moved(old, to: message.chatID, by: allowlist.permits(message.fromID) ? message.fromID : nil)
            policy.groups.insert(message.chatID)
        } else if let new = message.migrateTo {
            await migrations.moved(message.chatID, to: new)
        }
        switch policy.decide(message) {
        case .ignore(let why):
            logger.trace("message \(message.messageID) in \(message.chatID) ignored: \(why)")
        case .listen(let chat, let text):
            // A pairing claim (`/pair CODE`, or `/start CODE` from a t.me link) is the one thing
            // taken from users not on the allowlist.
            if let code = ChatPairParams.code(in: text, start: true) {
                let place = message.place
                // Unstructured on purpose: the poller moves on; the chat's lane keeps the order.
                Task { [lanes] in await lanes.enqueue(chat.key) { [self] in await self.pair(chat, code: code, in: place) } }
                break
            }
            guard allowlist.permits(message.fromID) else {
                refuse(message, chat: chat)
                break
            }
            let pending = PendingMessage(
                id: "\(message.chatID):\(message.messageID)", chat: chat, text: text, files: message.files, messageID: message.messageID)
            if journal.take(pending) {
                await lanes.enqueue(chat.key) { [self] in await self.relay(pending) }
            }
        }
        journal.cursor = id
        await saveJournal()
    }

    /// An update with nothing to journal (a button press, a membership change): confirmed with
    /// the rest of its batch.
    func skip(update id: Int) async {
        guard id > journal.cursor ?? 0 else { return }
        journal.cursor = id
        await saveJournal()
    }

    /// Refused users get "Not authorized." at most once per 10 minutes per chat, in a private
    /// chat or where they addressed the bot, and nothing about sessions or configuration.
    private func refuse(_ message: TelegramMessage, chat: Chat) {
        refused += 1
        logger.notice("refused a message from user \(message.fromID) (\(message.fromName)) in \(message.chatID): not in the allowlist")
        guard throttle.allows(message.fromID, in: message.chatID) else { return }
        let poster = poster
        let logger = logger
        let place = message.place
        // Unstructured on purpose: the poller moves on; the chat's lane keeps the order.
        Task { [lanes] in
            await lanes.enqueue(chat.key) {
                do { try await poster.send("Not authorized.", to: place) } catch {
                    logger.warning("could not answer a refused message: \(error)")
                }
            }
        }
    }

    /// A pairing claim: the supervisor checks the code (and refuses outside private chats); its
    /// answer is posted in the chat. In a group at most once per 10 minutes per user, as
    /// refusals are, so nobody can make the bot spam a group.
    private func pair(_ chat: Chat, code: String, in place: Place) async {
        logger.info("pairing claim from user \(chat.user) (\(chat.userName ?? "")) in \(place.key)")
        let reply = await connection.pair(chat, code: code)
        if !chat.dm, !throttle.allows(chat.user, in: chat.channel) { return }
        await show(reply, in: place, from: chat)
    }

    private func relay(_ pending: PendingMessage) async {
        let chat = pending.chat
        guard let place = Place(chat.target) else { return await finished(pending.id) }
        // A bare /start is Telegram's first word to a bot: help (with a code it is a pairing claim,
        // taken before the allowlist).
        var text = pending.text
        if text == "/start" { text = "/help" }
        let files = await InboundFiles.fetch(pending.files) { await download($0, message: pending) }
        let params = ChatMessageParams(chat: chat, messageID: pending.id, text: files.prompt(text), attachments: files.attachments)
        let result: ChatMessageResult
        switch await Handover.chatMessage(params, to: connection, logger: logger) {
        case .kept: return
        case .failed(let reason):
            await finished(pending.id)
            _ = try? await poster.send(TelegramText.html(reason), to: place, pace: .answer)
            return
        case .answered(let answered): result = answered
        }
        await finished(pending.id)
        relayed += 1
        logger.info("message \(pending.id) from \(chat.userName ?? chat.user): \(result.status.rawValue)")
        guard let reply = result.reply else { return }
        await show(reply, in: place, from: chat)
    }

    /// A supervisor reply in the chat, with its buttons; a new session's topic if it asks. A
    /// reply for everyone (a new session, a summary) goes before live views; an acknowledgement
    /// only its asker would see on another messenger ("Queued for …") is a notice.
    func show(_ reply: Reply, in place: Place, from chat: Chat) async {
        if !reply.text.isEmpty || !reply.actions.isEmpty {
            let buttons = await keyboard.buttons(reply.actions)
            let pace: BotAPI.Pace = reply.ephemeral ? .notice : .answer
            for (index, chunk) in TelegramText.htmlChunks(reply.text.isEmpty ? "…" : reply.text).enumerated() {
                do { try await poster.send(chunk, to: place, keyboard: index == 0 ? buttons : nil, pace: pace) } catch {
                    logger.warning("answering in \(place.key): \(error)")
                }
            }
        }
        if let open = reply.openThread { await topics.open(open, from: chat) }
    }

    /// A file into the spool folder through getFile; the download URL carries the token, so the
    /// supervisor and the attachments plugin get a path, never the URL.
    private func download(_ file: TelegramMessage.File, message: PendingMessage) async -> InboundFiles.Fetched {
        if let size = file.size, size > Self.maxDownloadBytes {
            return .notIncluded(file.filename, "Telegram lets bots download files up to 20 MB, and this one is \(size / 1_048_576) MB")
        }
        do {
            let info = try await api.call("getFile", ["file_id": .string(file.fileID)])
            guard let path = info["file_path"]?.stringValue else {
                return .notIncluded(file.filename, "Telegram gave no download path")
            }
            let safeName = file.filename.replacing("/", with: "_")
            let destination = spoolDir + "/tg-\(message.id.replacing(":", with: "-"))-\(safeName)"
            try await api.download(filePath: path, to: destination, maxBytes: Self.maxDownloadBytes)
            return .attached(AttachmentRef(path: destination, filename: file.filename, size: file.size, contentType: file.contentType))
        } catch let error as BotAPIError where error.text.contains("file is too big") {
            return .notIncluded(file.filename, "Telegram lets bots download files up to 20 MB")
        } catch {
            return .failed(file.filename, Topics.short(error), logger: logger)
        }
    }

    private func finished(_ id: String) async {
        journal.done(id)
        await saveJournal()
    }
}
