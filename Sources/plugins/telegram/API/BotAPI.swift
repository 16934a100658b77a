import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Telegram's Bot API over libcurl. Every URL carries the token in its path, so every URL is a
/// `SecretURL` and every error text is masked. Writes to a chat wait in the send queue for the
/// chat's budget (`SendPacer`), the most urgent first; a 429 holds the chat for its
/// `retry_after` (saved, so a restarted plugin still waits) and is retried; a 5xx or a dropped
/// connection is retried with backoff. Calls suspend, never block a thread.
final class BotAPI: Sendable {
    let base: String
    private let token: TelegramToken
    /// The transfer loop, proxy, log and call tally.
    private let connection: APIConnection
    var logger: Logger { connection.logger }
    /// The bot's write budget (`SendPacer`): the send queue takes writes from it in their order of
    /// urgency, and a 429 holds a chat in it (saved, so a restarted plugin still waits it out).
    private let budget: PacerBudget<SendPacer>
    /// Writes waiting for their chat's budget, by urgency.
    var queue: SendQueue { budget.queue }
    var tally: APITally { connection.tally }
    /// Groups upgraded to supergroups, looked up again when a write's turn comes.
    private let migrations: Migrations?
    /// Chats that refused the bot (403): a write that waited for its turn while its chat did so
    /// is not sent into it (Telegram counts each such write against the bot).
    private let blocked: BlockedChats?
    /// Told at a 401 (telegram-bot-api.md §1: a wrong or revoked token): the plugin ends as not
    /// configured, and what was being written stays with pi-relayd.
    private let tokenRefusal: TokenRefusal?
    /// What the owner reads then, naming the variable to fix; never the token.
    let tokenRefused: String
    /// The same, for a refusal while the plugin ran.
    var tokenRefusedWhileRunning: String { tokenRefused + "; what was waiting to be posted is posted once it is there and pi-relayd restarts" }

    init(
        base: String, token: TelegramToken, proxy: ProxySetting, loop: TransferLoop, logger: Logger, store: StateStore? = nil,
        migrations: Migrations? = nil, blocked: BlockedChats? = nil, tokenRefusal: TokenRefusal? = nil,
        tokenEnv: String = BundledSecret.telegramToken
    ) {
        self.base = base
        self.token = token
        self.migrations = migrations
        self.blocked = blocked
        self.tokenRefusal = tokenRefusal
        tokenRefused =
            "Telegram refused the bot token (401 Unauthorized): it is wrong or was revoked; put the current one from @BotFather (/token) "
            + "in \(tokenEnv)"
        connection = APIConnection(loop: loop, proxy: proxy, logger: logger)
        budget = PacerBudget(restoredFrom: store, logger: logger)
    }

    /// Calls `method` with JSON params and returns its `result`. `chat` names the chat a call
    /// goes to: it waits out a 429 hold on that chat, and a write (`counts`) also waits in the
    /// send queue for its place in the chat's budget, as `pace` says. Reads (getUpdates,
    /// getFile) pass nil. An edit a newer one replaced while it waited returns null, unsent.
    @discardableResult
    func call(
        _ method: String, _ params: JSONValue = [:], chat: String? = nil, counts: Bool = true, pace: SendPace = .notice,
        timeout: Duration = .seconds(30)
    ) async throws -> JSONValue {
        try await perform(method, body: .json(params.serializedBytes()), chat: chat, counts: counts, pace: pace, timeout: timeout)
    }

    /// A multipart call (sendDocument, sendPhoto): `fields` as text parts, the file streamed
    /// from `path` as the part `part`.
    @discardableResult
    func upload(
        _ method: String, fields: [String: String], part: String, path: String, filename: String, chat: String, pace: SendPace = .notice
    ) async throws -> JSONValue {
        var parts = fields.sorted { $0.key < $1.key }.map { HTTPFormPart(name: $0.key, content: .bytes(Array($0.value.utf8))) }
        parts.append(HTTPFormPart(name: part, content: .file(path: path), filename: filename, contentType: "application/octet-stream"))
        return try await perform(method, body: .multipart(parts), chat: chat, counts: true, pace: pace, timeout: .seconds(120))
    }

    /// Downloads a file getFile pointed at into `destination`. The URL carries the token: only
    /// this plugin ever sees it; others get the path.
    func download(filePath: String, to destination: String, maxBytes: Int) async throws {
        let url = SecretURL(base + "/file/bot" + token.value + "/" + filePath, secret: token.value)
        try await connection.download(
            url, to: destination, maxBytes: maxBytes, mask: token.masking, error: { BotAPIError(method: "download", status: $0, text: $1) })
    }

    private func perform(_ method: String, body: HTTPBody, chat: String?, counts: Bool, pace: SendPace, timeout: Duration) async throws -> JSONValue {
        do {
            return try await attempts(method, body: body, chat: chat, counts: counts, pace: pace, timeout: timeout)
        } catch let error as BotAPIError where error.isUnauthorized {
            tokenRefusal?.refuse(tokenRefusedWhileRunning)
            throw error
        }
    }

    /// The call's tries: each waits its chat's turn, a 429 holds the chat and is tried again.
    private func attempts(_ method: String, body: HTTPBody, chat: String?, counts: Bool, pace: SendPace, timeout: Duration) async throws -> JSONValue
    {
        let url = SecretURL(base + "/bot" + token.value + "/" + method, secret: token.value)
        // Telegram's 429s are per chat: a few holds, then the call fails.
        return try await APIAttempts.run(rateLimitedTries: 6) { attempt in
            if let chat, counts {
                // A live write's place was taken before it (its first try only: a retry after a
                // 429 waits again).
                if !(pace.prepaid && attempt == 1) {
                    guard try await queue.turn(chat: chat, priority: pace.priority, replaces: pace.replaces) else { return .done(.null) }
                }
                // The group was upgraded while this write waited for its turn: Telegram would
                // refuse the old id again. It is refused here with Telegram's answer, unsent, and
                // the poster sends it to the new id.
                if let moved = await migrations?.current(chat), moved != chat {
                    var error = BotAPIError(method: method, status: 400, text: "Bad Request: group chat was upgraded to a supergroup chat")
                    error.migrateTo = moved
                    return .failed(.refused, error)
                }
                // The chat refused the bot (403) while this write waited: it is not sent there.
                if await blocked?.isBlocked(chat) == true {
                    return .failed(.refused, BotAPIError(method: method, status: 403, text: "the chat blocked the bot (not sent)"))
                }
                // What the write spent is on file before it goes: a plugin restarted after it
                // knows (`SendPacer`).
                await budget.save(durable: false)
            } else {
                // A chat's hold, or a chat-less method's own (kept across restarts: a call made
                // inside the window prolongs it).
                let key = chat ?? Self.methodHold(method)
                let wait = budget.withPacer { $0.holdLeft(chat: key, now: Date().timeIntervalSince1970) }
                if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            }
            let reply = try await connection.exchange(
                method, url: url, body: body, timeout: timeout, attempt: attempt, mask: token.masking,
                notAnAnswer: "not a Bot API answer (is telegram.apiBase right?)", error: { BotAPIError(method: method, status: $0, text: $1) })
            let (json, ok, response): (JSONValue, Bool, HTTPResponse)
            switch reply {
            case .failed(let failure, let error): return .failed(failure, error)
            case .answered(let body, let said, let answer): (json, ok, response) = (body, said, answer)
            }
            if ok { return .done(json["result"] ?? .null) }
            var error = BotAPIError(
                method: method, status: json["error_code"]?.intValue ?? response.status,
                text: token.masking(json["description"]?.stringValue ?? "HTTP \(response.status)"))
            error.retryAfter = json["parameters"]?["retry_after"]?.intValue
            error.migrateTo = json["parameters"]?["migrate_to_chat_id"].flatMap { $0.stringValue ?? $0.intValue.map(String.init) }
            // Learnt from any write (a "typing…" too), not only from the ones that follow it:
            // the next write to the old id would meet the same 400 (Bot API spec §15).
            if let chat, let new = error.migrateTo { await migrations?.moved(chat, to: new) }
            if error.status == 429 {
                tally.rateLimited()
                let seconds = Double(error.retryAfter ?? 5)
                logger.warning("\(method): Telegram asks to wait \(Int(seconds)) s (429)\(chat.map { " for chat \($0)" } ?? "")")
                // §14: a 429 holds the chat it names. One for no chat (`setMyCommands`, whose
                // windows run to minutes after a few restarts) holds that method, not every chat.
                await hold(chat: chat ?? Self.methodHold(method), seconds: seconds)
                // A call for no chat has no pacer to hold it: it waits here.
                return .failed(.rateLimited(wait: chat == nil ? .seconds(seconds) : nil), error)
            }
            guard error.status >= 500 else { return .failed(.refused, error) }
            tally.failure()
            return .failed(.serverError, error)
        }
    }

    /// The key a chat-less method's 429 is held under, beside the chats' (no chat id has `#`).
    static func methodHold(_ method: String) -> String { "#" + method }

    private func hold(chat: String, seconds: Double) async {
        let now = Date().timeIntervalSince1970
        await budget.hold { $0.hold(chat: chat, seconds: seconds, now: now) }
    }
}
