import Logging
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
    let logger: Logger

    func run() async throws {
        var backoff = 1
        while !Task.isCancelled {
            let offset = await intake.inbox.savedCursor + 1
            let updates: [JSONValue]
            do {
                let result = try await api.call(
                    "getUpdates",
                    [
                        "offset": JSONValue(offset), "timeout": JSONValue(pollTimeoutSeconds),
                        "allowed_updates": ["message", "callback_query", "my_chat_member"],
                    ], timeout: .seconds(pollTimeoutSeconds + 15))
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
        }
    }
}
