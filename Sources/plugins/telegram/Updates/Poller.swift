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
    /// How long a batch's hand-overs are waited for before its position is confirmed anyway.
    static let handOverWithin: Duration = .seconds(10)

    func run() async throws {
        var backoff = 1
        var standing = false
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
            let offset = max(await intake.inbox.savedCursor, Int(gate.cursor ?? 0)) + 1
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
                throw PluginExit.notConfigured(
                    "Telegram refused the bot token (401 Unauthorized): it is wrong or was revoked; get a new one from @BotFather")
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
            for update in updates {
                guard let id = update["update_id"]?.intValue else { continue }
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
            if gate.managed, let last = updates.compactMap({ $0["update_id"]?.intValue }).max() {
                // Shared with other machines, an update is confirmed (the next poll's offset, the
                // stored position) only once pi-relayd has it: this machine may be frozen or
                // killed next, and the next holder must get from Telegram what it did not pass on.
                // A hand-over pi-relayd turned away for now (a session that is ending) stays
                // pending until a restart: that one is not waited for past `handOverWithin`.
                let handing = ContinuousClock.now
                while await intake.inbox.pendingCount > 0, gate.standBy() == nil, ContinuousClock.now - handing < Self.handOverWithin {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                guard gate.standBy() == nil else { continue }
                await report(last)
            }
        }
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
