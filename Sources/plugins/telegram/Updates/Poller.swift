import Logging
import MessengerKit
import PiRelaySDK

/// Long polling with `getUpdates`. Each batch is taken in (messages journaled by the inbox)
/// before the next call's `offset` confirms it, so a plugin killed at any moment loses no update
/// and acts on none twice. A 409 (another program polls this token, or a webhook is set) is
/// reported plainly and retried with backoff; a 401 ends the plugin: the token is wrong or
/// revoked, and waiting will not fix it.
struct Poller: Sendable {
    let api: BotAPI
    let intake: Intake
    let presses: Presses
    let pollTimeoutSeconds: Int
    /// Whether this machine polls now (always, unless a federation shares the token).
    let gate: IngressGate
    /// Where confirmed positions are reported, when a federation shares the token.
    let connection: PluginConnection
    let logger: Logger

    /// A long poll's wait while a federation shares the token: short, so a machine told to stand
    /// by (or cut off from pi-relayd) stops well before the lease can pass to another.
    static let federatedPollSeconds = 5
    /// While a shared bot's messages wait to be handed over, how often what pi-relayd turned
    /// away for now is offered again.
    static let offerKeptEvery: Duration = .seconds(5)

    func run() async throws {
        var backoff = 1
        var unsavedWait = 1
        var standing = false
        var reported = 0
        var offered = ContinuousClock.now
        while !Task.isCancelled {
            if let why = gate.standBy() {
                if !standing { logger.notice("not polling Telegram: \(why)") }
                standing = true
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            if standing { logger.notice("polling Telegram: this machine holds the bot's ingress") }
            standing = false
            // A machine that takes over starts where the last holder confirmed, if it got further.
            // Shared with other machines, Telegram keeps every update from the first message not
            // yet handed over: this machine may be killed next, and the next holder must get from
            // Telegram what this one did not pass on (the claims drop what it did).
            var before = await intake.inbox.cursor
            let held = gate.managed ? await heldBack() : nil
            let offset = min(max(await intake.inbox.savedCursor, Int(gate.cursor ?? 0)) + 1, held ?? .max)
            let wait = gate.managed ? min(pollTimeoutSeconds, Self.federatedPollSeconds) : pollTimeoutSeconds
            let updates: [JSONValue]
            do {
                let result = try await api.call(
                    "getUpdates",
                    [
                        "offset": JSONValue(offset), "timeout": JSONValue(wait),
                        "allowed_updates": ["message", "callback_query", "my_chat_member"],
                    ], timeout: .seconds(wait + 15))
                updates = result.arrayValue ?? []
                backoff = 1
            } catch is CancellationError {
                return
            } catch let error as BotAPIError where error.isUnauthorized {
                throw PluginExit.notConfigured(api.tokenRefusedWhileRunning)
            } catch let error as BotAPIError where error.status == 409 {
                if error.text.contains("webhook") {
                    logger.warning("a webhook is set for this bot; removing it so polling works")
                    _ = try? await api.call("deleteWebhook", ["drop_pending_updates": false])
                } else {
                    logger.error(
                        "another program is polling Telegram with this bot token (409 Conflict): only one may; stop the other one (retrying in \(backoff) s)"
                    )
                }
                try? await Task.sleep(for: .seconds(backoff))
                backoff = min(backoff * 2, 60)
                continue
            } catch {
                logger.warning("getUpdates failed: \(error) (retrying in \(backoff) s)")
                try? await Task.sleep(for: .seconds(backoff))
                backoff = min(backoff * 2, 60)
                continue
            }
            // Telegram sends no update below the offset asked for unless it numbers them anew:
            // after a week without updates the next `update_id` is chosen at random (Update, in
            // the Bot API's json), and a token of another bot brings that bot's numbers. Taken
            // for updates seen before, every later one would be skipped, and the bot deaf. A bot
            // shared through the federation goes by the database's position too (`gate.cursor`),
            // which only moves forward: not covered here.
            let lowest = updates.compactMap { $0["update_id"]?.intValue }.min()
            if let lowest, lowest < offset, held == nil, !gate.managed {
                logger.warning("Telegram numbers this bot's updates anew (update \(lowest), after \(offset - 1)): going on from there")
                await intake.inbox.renumbered(from: lowest)
                before = lowest - 1
            }
            for update in updates {
                // Held back (or after a journal that could not be saved), Telegram sends again
                // what was taken in already: a press must not be acted on twice.
                guard let id = update["update_id"]?.intValue, id > before else { continue }
                if let message = update["message"].flatMap(TelegramMessage.init(json:)) {
                    await intake.take(update: id, message)
                } else if let query = update["callback_query"] {
                    // Answered within Telegram's few seconds whatever the supervisor is doing:
                    // unstructured on purpose, and confirmed with the batch (a press is not
                    // journaled: a question can always be answered by text too).
                    Task { await presses.handle(query) }
                    await intake.skip(update: id)
                } else {
                    await intake.skip(update: id)
                }
            }
            // A journal the disk refused leaves the batch unconfirmed, and Telegram sends it again
            // at once, one update at a time: the poll would spin and never reach a newer message.
            // Saved again before the next poll; while the disk still refuses, with a pause.
            if await intake.inbox.savedCursor < (await intake.inbox.cursor), !(await intake.inbox.save()) {
                try? await Task.sleep(for: .seconds(unsavedWait))
                unsavedWait = min(unsavedWait * 2, 30)
                continue
            }
            unsavedWait = 1
            guard gate.managed, gate.standBy() == nil else { continue }
            let floor = await heldBack()
            let confirmed = min(await intake.inbox.savedCursor, (floor ?? .max) - 1)
            if confirmed > reported {
                await report(confirmed)
                reported = confirmed
            }
            // Held back: what pi-relayd turned away is offered again now and then, however busy
            // the bot is (it holds every later update at Telegram), and a poll that brought
            // nothing new (Telegram answers at once with what was taken in already) waits a breath.
            guard floor != nil else { continue }
            if ContinuousClock.now - offered >= Self.offerKeptEvery {
                offered = ContinuousClock.now
                await intake.inbox.resumePending()
            }
            if await intake.inbox.cursor == before { try? await Task.sleep(for: .milliseconds(250)) }
        }
    }

    /// The first update whose message is not handed over yet, nil when none waits.
    private func heldBack() async -> Int? {
        await intake.inbox.pending.compactMap(\.update).min()
    }

    /// The position the next poll confirms, stored by the federation under this machine's epoch;
    /// a refusal means another machine holds the lease now: stand by. (A database that does not
    /// answer is no refusal: the lease decides, through `messenger.ingress`.)
    private func report(_ position: Int) async {
        do {
            let answer = try await connection.request(
                .messengerCursor, IngressCursor(messenger: "telegram", position: Int64(position)), timeout: .seconds(5))
            if !answer.stored {
                gate.apply(
                    IngressChange(
                        messenger: "telegram", active: false, reason: "the federation refused our position: another machine holds the lease"))
            }
        } catch {
            logger.warning("the confirmed position \(position) was not stored: \(error)")
        }
    }
}
