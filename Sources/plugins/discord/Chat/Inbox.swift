import DiscordPayloads
import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Incoming Discord messages: which ones are for the relay (ListenPolicy), the allowlist, the
/// hand-over to the supervisor as `chat.message`, and showing its reply. Messages of one channel
/// are handled in order; channels in parallel.
actor Inbox {
    private let listening: Listening
    private let allowlist: Allowlist
    private let connection: PluginConnection
    private let poster: Poster
    private let threads: ThreadOpener
    private let store: StateStore
    private let logger: Logger
    private let lanes = Lanes()
    private var journal: InboxRecord
    /// "Not authorized." and pairing answers outside DMs: once per 10 minutes per user and
    /// channel, so a refused user cannot make the bot spam a channel.
    private var throttle = RefusalThrottle()
    private(set) var relayed = 0
    private(set) var refused = 0

    init(
        listening: Listening, allowlist: Allowlist, connection: PluginConnection, poster: Poster,
        threads: ThreadOpener, store: StateStore, logger: Logger
    ) {
        self.listening = listening
        self.allowlist = allowlist
        self.connection = connection
        self.poster = poster
        self.threads = threads
        self.store = store
        self.logger = logger
        journal = store.load(InboxRecord.self, from: InboxRecord.file) ?? InboxRecord()
    }

    /// Hands over again what a previous run took in but never finished handing over.
    func resumePending() async {
        guard !journal.pending.isEmpty else { return }
        logger.info("handing over \(journal.pending.count) message(s) taken in before a restart")
        for message in journal.pending {
            await lanes.enqueue(message.chat.postChannel) { [self] in await self.relay(message) }
        }
    }

    func receive(_ incoming: IncomingMessage) async {
        guard let policy = await listening.policy else {
            logger.warning("message \(incoming.id) arrived before the bot's identity was known; skipped")
            return
        }
        switch policy.decide(incoming) {
        case .ignore(let why):
            logger.trace("message \(incoming.id) in \(incoming.channelID) ignored: \(why)")
        case .listen(let chat, let text):
            // A pairing claim is the one thing taken from users not on the allowlist.
            if let code = ChatPairParams.code(in: text) {
                await lanes.enqueue(chat.postChannel) { [self] in await self.pair(chat, code: code, message: incoming.id) }
                return
            }
            guard allowlist.permits(incoming.authorID) else {
                await refuse(incoming, chat: chat)
                return
            }
            let message = PendingMessage(id: incoming.id, chat: chat, text: text, attachments: incoming.attachments)
            guard journal.take(message) else {
                logger.info("message \(incoming.id) was taken in before (replayed by Discord); skipped")
                return
            }
            // Journaled before the gateway saves its sequence number past this event.
            await store.save(journal, to: InboxRecord.file)
            await lanes.enqueue(chat.postChannel) { [self] in await self.relay(message) }
        }
    }

    /// Refused users get a plain "Not authorized." — in a DM, or where they mentioned the bot —
    /// at most once per 10 minutes per channel, and nothing about sessions or configuration.
    private func refuse(_ incoming: IncomingMessage, chat: Chat) async {
        refused += 1
        logger.notice("refused a message from user \(incoming.authorID) (\(incoming.authorName)) in \(chat.postChannel): not in the allowlist")
        guard chat.dm || chat.mentioned else { return }
        guard throttle.allows(incoming.authorID, in: chat.postChannel) else { return }
        let poster = poster
        let logger = logger
        // Posted from the channel's lane: the gateway reader does not wait for Discord.
        await lanes.enqueue(chat.postChannel) {
            do {
                try await poster.post(
                    Reply(text: "Not authorized."), channel: chat.postChannel, replyTo: incoming.id, nonceBase: "refuse:" + incoming.id)
            } catch {
                logger.warning("could not answer a refused message: \(error)")
            }
        }
    }

    /// `/pair CODE`: handed to the supervisor, which checks the code (and refuses outside DMs);
    /// its answer is posted as a reply. Outside a DM at most once per 10 minutes per user and
    /// channel, as refusals are, so nobody can make the bot spam a channel.
    private func pair(_ chat: Chat, code: String, message: String) async {
        logger.info("pairing claim from user \(chat.user) (\(chat.userName ?? "")) in \(chat.postChannel)")
        let reply = await connection.pair(chat, code: code)
        if !chat.dm, !throttle.allows(chat.user, in: chat.postChannel) { return }
        do {
            try await poster.post(reply, channel: chat.postChannel, replyTo: message, nonceBase: "pair:" + message)
        } catch {
            logger.warning("answering pairing claim \(message): \(error)")
        }
    }

    private func relay(_ pending: PendingMessage) async {
        let chat = pending.chat
        let attachments = pending.attachments.map { file in
            AttachmentRef(url: file.url, filename: file.filename, size: file.size, contentType: file.contentType)
        }
        let params = ChatMessageParams(chat: chat, messageID: pending.id, text: pending.text, attachments: attachments)
        let result: ChatMessageResult
        switch await Handover.chatMessage(params, to: connection, logger: logger) {
        case .kept: return
        case .failed(let reason):
            await finished(pending.id)
            _ = try? await poster.post(Reply(text: reason), channel: chat.postChannel, replyTo: pending.id, nonceBase: "error:" + pending.id)
            return
        case .answered(let answered): result = answered
        }
        await finished(pending.id)
        relayed += 1
        logger.info("message \(pending.id) from \(chat.userName ?? chat.user) in \(chat.postChannel): \(result.status.rawValue)")
        // A prompt queued behind a running turn: a ⏳ on it says so, instead of a line of text.
        if let emoji = result.reaction {
            do {
                try await poster.rest.react(channel: chat.postChannel, message: pending.id, emoji: emoji)
                return
            } catch {
                logger.warning("reacting to message \(pending.id): \(error); answering in text")
            }
        }
        guard let reply = result.reply else { return }
        do {
            if !reply.isEmpty {
                try await poster.post(reply, channel: chat.postChannel, replyTo: pending.id, nonceBase: "reply:" + pending.id)
            }
        } catch {
            logger.warning("answering message \(pending.id): \(error)")
        }
        if let open = reply.openThread {
            await threads.open(open, from: chat, nonceBase: "thread:" + pending.id)
        }
    }

    private func finished(_ id: String) async {
        journal.done(id)
        await store.save(journal, to: InboxRecord.file)
    }
}
