import DiscordPayloads
import Logging
import MessengerKit
import PiRelaySDK

/// Incoming Discord messages: which ones are for the relay (ListenPolicy), pairing claims and the
/// allowlist. What is for the supervisor goes into the kit's `Inbox`, journaled before the
/// gateway saves its sequence number past the event (`Inbox.journalWritten`).
///
/// When a federation shares the bot with other machines, Discord sends every message to every
/// machine's connection: only the lease's holder acts on them. The others, and a holder whose
/// daemon has gone silent, keep what comes in for a minute (`StandbyBuffer`) and act on it when
/// they take the bot; the federation's claims drop what the previous holder acted on.
actor Intake {
    let inbox: Inbox<Handoff>
    let listening: Listening
    let allowlist: Allowlist
    let poster: Poster
    let gate: IngressGate
    let logger: Logger
    private var standby = StandbyBuffer<IncomingMessage>()

    init(inbox: Inbox<Handoff>, listening: Listening, allowlist: Allowlist, poster: Poster, gate: IngressGate, logger: Logger) {
        self.inbox = inbox
        self.listening = listening
        self.allowlist = allowlist
        self.poster = poster
        self.gate = gate
        self.logger = logger
    }

    /// Messages kept while standing by, for `status`.
    var kept: Int { standby.count }

    func receive(_ incoming: IncomingMessage) async {
        if let why = gate.standBy() {
            standby.hold(incoming, at: .now)
            logger.debug("message \(incoming.id) kept while standing by: \(why)")
            return
        }
        await takeOver()
        await take(incoming, held: false)
    }

    /// This machine holds the bot (again): what came in while it stood by is acted on now.
    func takeOver() async {
        guard gate.managed, gate.standBy() == nil else { return }
        let held = standby.release(at: .now)
        guard !held.isEmpty else { return }
        logger.info("acting on \(held.count) message(s) received while this machine stood by")
        for message in held { await take(message, held: true) }
    }

    /// `held`: received while standing by, when the holder then may have answered pairing claims
    /// and refusals already; only what is for a session is passed on (and claimed) again.
    private func take(_ incoming: IncomingMessage, held: Bool) async {
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
                if !held { await pair(chat, code: code, message: incoming.id) }
                return
            }
            guard allowlist.permits(incoming.authorID) else {
                if !held { await refuse(incoming, chat: chat) }
                return
            }
            // Journaled beside the gateway's reader, which takes the next event meanwhile; its
            // resume point waits for the journal.
            if await inbox.take(PendingMessage(id: incoming.id, chat: chat, text: text, attachments: incoming.attachments)) {
                await inbox.saveBeside()
            }
        }
    }

    /// Refused users get a plain "Not authorized." — in a DM, or where they mentioned the bot —
    /// at most once per 10 minutes per channel, and nothing about sessions or configuration.
    private func refuse(_ incoming: IncomingMessage, chat: Chat) async {
        logger.notice("refused a message from user \(incoming.authorID) (\(incoming.authorName)) in \(chat.postChannel): not in the allowlist")
        guard chat.dm || chat.mentioned else { return }
        guard await inbox.refuse(incoming.authorID, in: chat.postChannel) else { return }
        let poster = poster
        let logger = logger
        // Posted from the channel's lane: the gateway reader does not wait for Discord.
        await inbox.enqueue(chat.postChannel) {
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
        let poster = poster
        let logger = logger
        await inbox.pair(chat, code: code, lane: chat.postChannel, throttledIn: chat.dm ? nil : chat.postChannel) { reply in
            do {
                try await poster.post(reply, channel: chat.postChannel, replyTo: message, nonceBase: "pair:" + message)
            } catch {
                logger.warning("answering pairing claim \(message): \(error)")
            }
        }
    }
}
