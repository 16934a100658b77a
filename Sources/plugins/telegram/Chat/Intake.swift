import Logging
import MessengerKit
import PiRelaySDK

/// Incoming Telegram updates: which messages are for the relay (ListenPolicy), group migrations,
/// pairing claims and the allowlist. What is for the supervisor goes into the kit's `Inbox`,
/// journaled before the poller confirms its update.
actor Intake {
    let inbox: Inbox<Handoff>
    private let handoff: Handoff
    private let allowlist: Allowlist
    private let forums: ForumChats
    private let blocked: BlockedChats
    private let migrations: Migrations
    private let logger: Logger
    private var policy: ListenPolicy

    init(
        inbox: Inbox<Handoff>, handoff: Handoff, allowlist: Allowlist, forums: ForumChats, blocked: BlockedChats, migrations: Migrations,
        policy: ListenPolicy, logger: Logger
    ) {
        self.inbox = inbox
        self.handoff = handoff
        self.allowlist = allowlist
        self.forums = forums
        self.blocked = blocked
        self.migrations = migrations
        self.policy = policy
        self.logger = logger
    }

    func learn(bot id: String, username: String) { policy.botID = id; policy.botUsername = username }

    /// A group bound to a session listens without mentions when `requireMention` is off.
    func bound(_ chat: String) { if chat.hasPrefix("-") { policy.groups.insert(chat) } }

    /// Takes in one update's message. Returns once the message is journaled (or judged not for
    /// us), so the poller may confirm the update.
    func take(update id: Int, _ message: TelegramMessage) async {
        guard id > (await inbox.cursor) else {
            logger.info("update \(id) was taken in before (sent again after a restart); skipped")
            return
        }
        await forums.saw(message)
        await blocked.heard(message.chat.id)
        if let old = message.migrateFrom {
            await migrations.moved(old, to: message.chat.id, by: allowlist.permits(message.from.id) ? message.from.id : nil)
            policy.groups.insert(message.chat.id)
        } else if let new = message.migrateTo {
            await migrations.moved(message.chat.id, to: new)
        }
        switch policy.decide(message) {
        case .ignore(let why):
            logger.trace("message \(message.messageID) in \(message.chat.id) ignored: \(why)")
        case .listen(let chat, let text):
            // A pairing claim (`/pair CODE`, or `/start CODE` from a t.me link) is the one thing
            // taken from users not on the allowlist.
            if let code = ChatPairParams.code(in: text, start: true) {
                let place = message.place
                let handoff = handoff
                await inbox.pair(chat, code: code, lane: chat.key, throttledIn: chat.dm ? nil : chat.channel) {
                    await handoff.show($0, in: place, from: chat)
                }
                break
            }
            guard allowlist.permits(message.from.id) else {
                await refuse(message, chat: chat)
                break
            }
            await inbox.take(
                PendingMessage(
                    id: "\(message.chat.id):\(message.messageID)", chat: chat, text: text, files: message.files, messageID: message.messageID,
                    update: id, album: message.album))
            if let album = message.album { policy.heard(album: album) }
        }
        await inbox.advance(cursor: id)
        await inbox.save()
    }

    /// An update with nothing to journal (a button press, a membership change): confirmed with
    /// the rest of its batch.
    func skip(update id: Int) async {
        guard id > (await inbox.cursor) else { return }
        await inbox.advance(cursor: id)
        await inbox.save()
    }

    /// Refused users get "Not authorized." at most once per 10 minutes per chat, in a private
    /// chat or where they addressed the bot, and nothing about sessions or configuration.
    private func refuse(_ message: TelegramMessage, chat: Chat) async {
        logger.notice("refused a message from user \(message.from.id) (\(message.from.name)) in \(message.chat.id): not in the allowlist")
        guard await inbox.refuse(message.from.id, in: message.chat.id) else { return }
        let poster = handoff.poster
        let logger = logger
        let place = message.place
        await inbox.enqueue(chat.key) {
            do { try await poster.send("Not authorized.", to: place) } catch {
                logger.warning("could not answer a refused message: \(error)")
            }
        }
    }
}
