import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Slack's Web API over libcurl: `POST <apiBase>/<method>` with the token in the Authorization
/// header (never in a body or URL), JSON with `charset=utf-8` for writes and form fields for
/// reads (Slack drops JSON arguments of read methods). Every call waits its turn in
/// `MethodPacer`; a 429 holds the method for its `Retry-After` (saved, so a restarted plugin
/// still waits) and is retried; a 5xx or a dropped connection is retried with backoff. Every
/// answer's `ok` decides, never the HTTP status. Calls suspend, never block a thread.
final class WebAPI: Sendable {
    enum TokenKind: Sendable {
        case bot
        case app
    }

    let base: String
    private let botToken: SlackToken
    private let appToken: SlackToken
    /// The transfer loop, proxy, log and call tally.
    private let connection: APIConnection
    private var logger: Logger { connection.logger }
    private var proxy: ProxySetting { connection.proxy }
    private var loop: TransferLoop { connection.loop }
    /// The app's call budget (`MethodPacer`): a chat's writes wait in the line of the bucket they
    /// draw on (`chat.postMessage/C0123`, or `chat.update` for every channel's edits), the most
    /// urgent first; a 429 holds a method in it, and its Tier 1 buckets are saved with the holds.
    private let budget: PacerBudget<MethodPacer>
    /// A chat's writes (posts, edits, deletions) in order of urgency: questions and finals before
    /// live views, live views before notices, and a newer edit of a message in place of one still
    /// waiting.
    var queue: SendQueue { budget.queue }
    var tally: APITally { connection.tally }
    private let warned = Mutex(Set<String>())

    /// Told when Slack refuses the bot token mid-run; `botTokenEnv` names it in what the owner reads.
    private let tokenRefusal: TokenRefusal?
    private let botTokenEnv: String

    init(
        base: String, botToken: SlackToken, appToken: SlackToken, proxy: ProxySetting, loop: TransferLoop, logger: Logger, store: StateStore?,
        tokenRefusal: TokenRefusal? = nil, botTokenEnv: String = BundledSecret.slackBotToken
    ) {
        self.base = base
        self.tokenRefusal = tokenRefusal
        self.botTokenEnv = botTokenEnv
        self.botToken = botToken
        self.appToken = appToken
        connection = APIConnection(loop: loop, proxy: proxy, logger: logger)
        budget = PacerBudget(restoredFrom: store, logger: logger)
    }

    /// Calls `method` and returns Slack's whole answer (`ok` was true). `form` sends the
    /// arguments form-encoded, as read methods need; `channel` is where a post goes, for its
    /// per-channel pace. A write (`writes`) waits in the send queue with `priority`; one that
    /// names `replaces` gives way to a newer write naming the same, and then answers `null`
    /// without being sent.
    @discardableResult
    func call(
        _ method: String, _ args: JSONValue = [:], token kind: TokenKind = .bot, form: Bool = false, channel: String? = nil,
        priority: SendPriority = .notice, replaces: String? = nil, timeout: Duration = .seconds(30)
    ) async throws -> JSONValue {
        let token = kind == .bot ? botToken : appToken
        let body: HTTPBody
        if form {
            let pairs = (args.objectValue ?? [:]).sorted { $0.key < $1.key }.map { key, value in
                Self.formEncoded(key) + "=" + Self.formEncoded(value.stringValue ?? String(decoding: value.serializedBytes(), as: UTF8.self))
            }
            body = .bytes(Array(pairs.joined(separator: "&").utf8), contentType: "application/x-www-form-urlencoded")
        } else if args.objectValue?.isEmpty ?? true {
            body = .none
        } else {
            body = .bytes(args.serializedBytes(), contentType: "application/json; charset=utf-8")
        }
        let url = SecretURL(base + "/" + method)
        // Slack's 429s are per method; a busy one may take several holds.
        do {
            return try await attempts(
                method, url: url, token: token, body: body, channel: channel, priority: priority, replaces: replaces, timeout: timeout)
        } catch let error as SlackAPIError where kind == .bot && error.isTokenProblem {
            tokenRefusal?.refuse(
                "Slack refused the bot token (\(error.error)): \(botTokenEnv) must hold a current xoxb-… token (OAuth & Permissions); "
                    + "what was waiting to be posted is posted once it does and pi-relayd restarts")
            throw error
        }
    }

    /// The call's tries: each waits its turn, a 429 holds the method and is tried again.
    private func attempts(
        _ method: String, url: SecretURL, token: SlackToken, body: HTTPBody, channel: String?, priority: SendPriority, replaces: String?,
        timeout: Duration
    ) async throws -> JSONValue {
        try await APIAttempts.run(rateLimitedTries: 8) { attempt in
            if Self.writes.contains(method), let key = MethodPacer.key(method: method, channel: channel) {
                guard try await queue.turn(chat: key, priority: priority, replaces: replaces) else { return .done(.null) }
            } else {
                while true {
                    let wait = budget.withPacer { $0.claim(method: method, channel: channel, now: Date().timeIntervalSince1970) }
                    if wait <= 0 { break }
                    try await Task.sleep(for: .milliseconds(Int((wait * 1000).rounded(.up))))
                }
            }
            // What the call spent is on file before it goes (`MethodPacer`); flushed for Tier 1,
            // whose minute outlasts a machine's restart too.
            if MethodTier.of(method) != nil { await budget.save(durable: MethodTier.of(method) == .tier1) }
            let reply: APIConnection.Reply
            do {
                reply = try await connection.exchange(
                    method, url: url, headers: ["Authorization: Bearer " + token.value], body: body, timeout: timeout, attempt: attempt,
                    mask: token.masking, notAnAnswer: "not a Web API answer (is slack.apiBase right?)",
                    error: { SlackAPIError(method: method, status: $0, error: $1) }
                ) { response in
                    guard response.status == 429 else { return nil }
                    tally.rateLimited()
                    let seconds = Double(response[header: "Retry-After"].flatMap { Int($0.trimmed()) } ?? 5)
                    logger.warning("\(method): Slack asks to wait \(Int(seconds)) s (429)")
                    await hold(method: method, seconds: seconds)
                    return .failed(.rateLimited(wait: nil), SlackAPIError(method: method, status: 429, error: "ratelimited"))
                }
            } catch {
                // Cancelled on the way: the call says nothing of the limit, and must not keep
                // the method waiting for an answer that will not come.
                await ended(method: method, channel: channel, answered: false)
                throw error
            }
            let (json, ok, response): (JSONValue, Bool, HTTPResponse)
            switch reply {
            case .failed(let failure, let error):
                if case .rateLimited = failure {} else { await ended(method: method, channel: channel, answered: false) }
                return .failed(failure, error)
            case .answered(let body, let said, let answer): (json, ok, response) = (body, said, answer)
            }
            await ended(method: method, channel: channel, answered: true)
            if let warning = json["warning"]?.stringValue { warnOnce(method, warning) }
            if ok { return .done(json) }
            var error = SlackAPIError(method: method, status: response.status, error: token.masking(json["error"]?.stringValue ?? "unknown_error"))
            error.needed = json["needed"]?.stringValue
            error.messages = json["response_metadata"]?["messages"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard error.isTransient else { return .failed(.refused, error) }
            tally.failure()
            return .failed(.serverError, error)
        }
    }

    /// Sends a file's bytes to an upload URL `files.getUploadURLExternal` gave: no token (the URL
    /// is the permission), HTTP 200 means stored.
    func upload(bytes: [UInt8], to uploadURL: String) async throws {
        let request = HTTPRequest(
            method: "POST", url: SecretURL(uploadURL), body: .bytes(bytes, contentType: "application/octet-stream"), timeout: .seconds(120),
            proxy: proxy, maxBytes: 1 << 20)
        tally.request()
        switch await loop.perform(request) {
        case .success(let response) where response.status == 200: return
        case .success(let response): throw SlackAPIError(method: "upload", status: response.status, error: "HTTP \(response.status)")
        case .failure(let error): throw SlackAPIError(method: "upload", status: 0, error: error.description)
        }
    }

    /// Downloads a file's `url_private` with the bot token into `destination`. The token goes to
    /// Slack's own hosts only; an HTML answer is Slack's sign-in page (no access), not the file.
    func download(_ url: String, to destination: String, maxBytes: Int) async throws {
        guard Self.isSlackHost(url, apiBase: base) else {
            throw SlackAPIError(method: "download", status: 0, error: "not a Slack file address; the bot token is not sent there")
        }
        try await connection.download(
            SecretURL(url), headers: ["Authorization: Bearer " + botToken.value], to: destination, maxBytes: maxBytes, mask: botToken.masking,
            error: { SlackAPIError(method: "download", status: $0, error: $1) },
            refusal: { response in
                (response[header: "Content-Type"] ?? "").hasPrefix("text/html")
                    ? "Slack answered with its sign-in page (does the app have files:read?)" : nil
            })
    }

    /// `url` is on a host of Slack's (`*.slack.com`, `*.slack-edge.com`) or the API's own host (a
    /// test double or a proxy in front of Slack). The host part ends where a URL parser ends it
    /// (`/`, `?`, `#`), and holds a name and a port only: `@`, `%` or a backslash there is no
    /// Slack host (curl reads `https://files.slack.com\@evil.example/` as evil.example, and
    /// `evil.example#.slack.com` as evil.example).
    static func isSlackHost(_ url: String, apiBase: String) -> Bool {
        func host(_ text: String) -> String? {
            guard let start = text.firstRange(of: "://")?.upperBound,
                ["http", "https"].contains(text[..<text.index(start, offsetBy: -3)].lowercased())
            else { return nil }
            let rest = text[start...]
            let end = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
            let authority = rest[..<end].lowercased()
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), !parts[0].isEmpty,
                parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }),
                parts.count == 1 || (!parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && $0.isNumber })
            else { return nil }
            return authority
        }
        guard let target = host(url) else { return false }
        let name = target.split(separator: ":").first.map(String.init) ?? target
        return target == host(apiBase) || name == "slack.com" || name.hasSuffix(".slack.com") || name.hasSuffix(".slack-edge.com")
    }

    private func warnOnce(_ method: String, _ warning: String) {
        let key = method + ":" + warning
        guard warned.withLock({ $0.insert(key).inserted }) else { return }
        logger.warning("\(method): Slack warns \(warning) (a bug of ours; the call went through)")
    }

    private func hold(method: String, seconds: Double) async {
        let now = Date().timeIntervalSince1970
        await budget.hold { $0.hold(method: method, seconds: seconds, now: now) }
    }

    /// After a 429, the call out to learn whether the limit is over came back: the calls
    /// waiting behind it are looked at again.
    private func ended(method: String, channel: String?, answered: Bool) async {
        let waited = budget.withPacer { pacer in
            let was = pacer.trying[method] != nil
            pacer.ended(method: method, answered: answered)
            return was
        }
        if waited, Self.writes.contains(method), let key = MethodPacer.key(method: method, channel: channel) { await queue.refresh(chat: key) }
    }

    /// What a chat shows: these wait in the send queue by urgency, the rest in call order.
    static let writes: Set<String> = ["chat.postMessage", "chat.update", "chat.delete"]

    private static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
