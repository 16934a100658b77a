import Logging
import MessengerKit
import PiRelaySDK

/// What Socket Mode brings in. `take` decides and journals, which takes milliseconds, and
/// returns so the envelope is acknowledged; the hand-over to the supervisor runs after, in the
/// conversation's lane (the kit's `Inbox`). An event seen before (Slack's retry, or the second
/// event of a channel mention) is skipped; the ids are saved, so a restarted plugin still knows
/// them.
actor Intake {
    let inbox: Inbox<Handoff>
    private let poster: Poster
    private let replies: Replies
    private let botDMs: BotDMs
    private let allowlist: Allowlist
    private let threads: Threads
    private let clicks: Clicks
    private let logger: Logger
    private var policy: ListenPolicy

    init(
        inbox: Inbox<Handoff>, poster: Poster, replies: Replies, botDMs: BotDMs, allowlist: Allowlist, threads: Threads, clicks: Clicks,
        policy: ListenPolicy, logger: Logger
    ) {
        self.inbox = inbox
        self.poster = poster
        self.replies = replies
        self.botDMs = botDMs
        self.allowlist = allowlist
        self.threads = threads
        self.clicks = clicks
        self.policy = policy
        self.logger = logger
    }

    func learn(botUser: String) { policy.botUser = botUser }

    /// A channel bound to a session listens without mentions when `requireMention` is off.
    func bound(_ channel: String) { if !channel.hasPrefix("D") { policy.channels.insert(channel) } }

    /// One envelope, before its acknowledgement. Slack does not send commands and clicks again,
    /// so only a message's event may wait for its hand-over.
    func take(_ envelope: Envelope) async -> Receipt {
        switch envelope.kind {
        case .eventsAPI: return await event(envelope)
        case .slashCommands: await command(envelope.payload)
        case .interactive:
            guard envelope.payload["type"]?.stringValue == "block_actions" else { return .now }
            let payload = envelope.payload
            // Unstructured on purpose: the click is acknowledged now; its answer comes after.
            Task { await clicks.handle(payload) }
        }
        return .now
    }

    private func event(_ envelope: Envelope) async -> Receipt {
        let payload = envelope.payload
        guard let eventID = payload["event_id"]?.stringValue else { return .now }
        guard await inbox.see(event: eventID) else {
            logger.info("event \(eventID) (retry \(envelope.retryAttempt)) was taken in before; skipped")
            // Its message may still be waiting for pi-relayd: then this retry waits for it too.
            if let key = payload["event"].flatMap(SlackEvent.init(json:))?.key, await inbox.isPending(key) {
                return await inbox.journalSaved ? .onceHandedOver(key) : .onceHandedOverUnsaved(key)
            }
            return .now
        }
        let message = await consider(payload["event"], id: eventID)
        let saved = await inbox.save()
        if let message, await inbox.isPending(message) { return saved ? .onceHandedOver(message) : .onceHandedOverUnsaved(message) }
        return .now
    }

    /// The key of the message this event brings pi-relayd (taken in now or before), if any.
    private func consider(_ json: JSONValue?, id eventID: String) async -> String? {
        guard let event = json.flatMap(SlackEvent.init(json:)) else { return nil }
        policy.threads = await threads.opened
        switch policy.decide(event) {
        case .ignore(let why):
            logger.trace("event \(eventID) in \(event.channel) ignored: \(why)")
            return nil
        case .listen(let chat, let text):
            if let code = ChatPairParams.code(in: text, start: false) {
                await pair(chat, code: code)
                return nil
            }
            guard allowlist.permits(chat.user) else {
                await refuse(chat.user, in: Place(channel: chat.channel, thread: chat.thread))
                return nil
            }
            await inbox.take(PendingMessage(id: event.key, chat: chat, text: text, files: event.files, ts: event.ts))
            return event.key
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
            await pair(chat, code: code)
            return
        }
        guard allowlist.permits(user) else {
            await refuse(user, in: Place(channel: channel), always: true, command: true)
            return
        }
        if await inbox.take(PendingMessage(id: "cmd:" + trigger, chat: chat, text: text, files: [], ts: nil)) {
            await inbox.save()
        }
    }

    private func pair(_ chat: Chat, code: String) async {
        let (replies, botDMs, inbox) = (replies, botDMs, inbox)
        guard chat.dm else {
            await inbox.pair(chat, code: code, lane: PendingMessage.lane(chat), throttledIn: nil) { await replies.show($0, to: chat) }
            return
        }
        // A DM may be one between people, where the bot cannot post (`BotDMs`): the claim is the
        // bot's DM's (a code for a session binds the chat that claims it), found in the lane,
        // as asking Slack must not hold the envelope's acknowledgement.
        await inbox.enqueue(PendingMessage.lane(chat)) {
            let answerable = await botDMs.answerable(chat, command: true).chat
            await inbox.pair(answerable, code: code, lane: PendingMessage.lane(answerable), throttledIn: nil) {
                await replies.show($0, to: answerable)
            }
        }
    }

    /// Refused users get "Not authorized." (ephemeral, or in their DM) at most once per 10
    /// minutes per conversation; a refused `/pi` always gets it, since Slack shows the command
    /// failed otherwise.
    private func refuse(_ user: String, in place: Place, always: Bool = false, command: Bool = false) async {
        logger.notice("refused user \(user) in \(place.key): not in the allowlist")
        guard await inbox.refuse(user, in: place.channel, always: always) else { return }
        let (poster, logger, botDMs) = (poster, logger, botDMs)
        await inbox.enqueue(place.key) {
            do {
                if place.channel.hasPrefix("D") {
                    // A command from a DM between people is answered in the bot's own DM.
                    let asked = Chat(messenger: "slack", channel: place.channel, user: user, dm: true, mentioned: true)
                    let chat = await botDMs.answerable(asked, command: command).chat
                    try await poster.send("Not authorized.", to: Place(channel: chat.channel, thread: place.thread))
                } else {
                    do { try await poster.ephemeral("Not authorized.", to: user, in: place) } catch let error as SlackAPIError
                        where error.error == "not_in_channel"
                    {
                        // A `/pi` from a channel nobody invited the bot to (§9): no ephemeral
                        // there, and Slack shows a command nobody answered as failed.
                        try await poster.direct("Not authorized.", to: user)
                    }
                }
            } catch {
                logger.warning("could not answer a refused user: \(error)")
            }
        }
    }
}
