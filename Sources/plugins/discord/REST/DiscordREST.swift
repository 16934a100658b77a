import FoundationEssentials
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Discord's REST API over libcurl, with the rate limiter in front of every request and retries
/// where they are safe. Calls suspend (on the limiter or the transfer loop) but never block a
/// thread of the cooperative pool.
final class DiscordREST: Sendable {
    static let userAgent = "DiscordBot (https://github.com/pi-relayd/pi-relayd, 0.1.0)"

    let base: String
    private let token: BotToken
    private let proxy: ProxySetting
    private let loop: TransferLoop
    private let limiter = Mutex(RateLimiter())
    let tally = APITally()
    private let logger: Logger
    /// Where used-up buckets are saved for the next instance (nil: not saved), and what was last
    /// written there.
    private let holdsPath: String?
    private let savedHolds = Mutex<(hold: RateLimitHold, at: ContinuousClock.Instant?)>((RateLimitHold(), nil))
    /// A channel's message posts and edits in order of urgency: questions and finals before live
    /// views, live views before notices, and a newer live edit of a message in place of one still
    /// waiting.
    let queue: SendQueue
    private let writes = ChannelWrites()

    /// Told when Discord refuses the bot token mid-run.
    private let tokenRefusal: TokenRefusal?

    init(
        base: String, token: BotToken, proxy: ProxySetting, loop: TransferLoop, logger: Logger, holdsPath: String? = nil,
        tokenRefusal: TokenRefusal? = nil
    ) {
        self.tokenRefusal = tokenRefusal
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.token = token
        self.proxy = proxy
        self.loop = loop
        self.logger = logger
        self.holdsPath = holdsPath
        queue = SendQueue(allowance: writes)
        if let holdsPath, let bytes = RewrittenFile.read(holdsPath),
            let hold = try? JSONDecoder().decode(RateLimitHold.self, from: Data(bytes))
        {
            let wallNow = Date().timeIntervalSince1970
            limiter.withLock { $0.restore(hold, now: .now, wallNow: wallNow) }
            let live = hold.buckets.filter { $0.until > wallNow }.count
            let recent = hold.globalSends.filter { wallNow - $0 < 1 }.count
            if live + recent > 0 {
                logger.info("rate limits: the previous run left \(live) bucket(s) used up and \(recent) request(s) in the global window")
            }
        }
    }

    /// Sends `endpoint` and returns the parsed JSON body (nil for 204 or an empty body).
    @discardableResult
    func send(
        _ endpoint: Endpoint, json: JSONValue? = nil, files: [UploadFile] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> JSONValue? {
        let body: HTTPBody
        if !files.isEmpty {
            // Discord's upload shape: a `payload_json` part and one `files[n]` part per file.
            body = .multipart(
                [
                    HTTPFormPart(
                        name: "payload_json", content: .bytes((json ?? [:]).serializedBytes()),
                        contentType: "application/json")
                ]
                    + files.enumerated().map { index, file in
                        HTTPFormPart(
                            name: "files[\(index)]", content: .file(path: file.path), filename: file.filename,
                            contentType: file.contentType)
                    })
        } else if let json {
            body = .json(json.serializedBytes())
        } else {
            body = .none
        }
        let request = HTTPRequest(
            method: endpoint.method, url: SecretURL(base + endpoint.path),
            headers: ["Authorization: Bot \(token.value)", "User-Agent: \(Self.userAgent)"],
            body: body, timeout: files.isEmpty ? timeout : max(timeout, .seconds(120)), proxy: proxy,
            tunnelsThroughProxy: true)
        var rateLimitedTimes = 0
        var failedTimes = 0
        while true {
            try Task.checkCancellation()
            let ticket = try await admit(endpoint)
            tally.request()
            let result = await loop.perform(request)
            switch result {
            case .failure(let error):
                limiter.withLock { $0.abandon(ticket) }
                if error == .cancelled { throw CancellationError() }
                failedTimes += 1
                guard endpoint.idempotent, failedTimes < 4 else {
                    tally.failure()
                    throw DiscordAPIError(endpoint: endpoint.description, status: 0, code: nil, message: error.description)
                }
                logger.warning("\(endpoint): \(error); retrying")
                try await Task.sleep(for: Self.backoff(failedTimes))
            case .success(let response):
                if response.status == 429, case let error = Self.error(endpoint, response), error.code == DiscordAPIError.oldMessageEdits {
                    // Not the route's bucket: taken as one, it held every edit in the channel,
                    // and the message only gets older. The caller posts anew.
                    limiter.withLock { $0.abandon(ticket) }
                    tally.rateLimited()
                    throw error
                }
                let now = ContinuousClock.now
                let info = RateLimitInfo(response)
                let verdict = limiter.withLock { $0.complete(ticket, info, now: now) }
                saveHolds(now: now, urgent: info.status == 429 || info.remaining == 0)
                if case .retry(let at) = verdict {
                    rateLimitedTimes += 1
                    tally.rateLimited()
                    logger.warning("\(endpoint): rate limited (429), retrying in \(Self.seconds(at - now)) s")
                    guard rateLimitedTimes < 10 else { throw Self.error(endpoint, response) }
                    continue
                }
                switch response.status {
                case 200..<300:
                    guard !response.body.isEmpty else { return nil }
                    return try? JSONValue.parse(bytes: response.body)
                case 500..<600 where endpoint.idempotent && failedTimes < 3:
                    failedTimes += 1
                    logger.warning("\(endpoint): HTTP \(response.status); retrying")
                    try await Task.sleep(for: Self.backoff(failedTimes))
                default:
                    tally.failure()
                    let error = Self.error(endpoint, response)
                    if error.refusesBotToken { tokenRefusal?.refuse(error.tokenRejection) }
                    throw error
                }
            }
        }
    }

    /// Saves what a restarted instance must know (`RateLimitHold`) when a bucket is used up,
    /// and every 200 ms while the global window is more than a third full: a small file,
    /// rewritten in place without a flush (`RewrittenFile`: it must outlive a killed plugin, not a
    /// crashed machine, and one torn by a kill in mid-write costs a restart its saved waits).
    /// Small enough to write inline; quiet traffic writes nothing.
    private func saveHolds(now: ContinuousClock.Instant, urgent: Bool) {
        guard let holdsPath else { return }
        let (hold, busy) = limiter.withLock { limiter in
            (limiter.holds(now: now, wallNow: Date().timeIntervalSince1970), limiter.globalLoad(now: now) * 3 > limiter.globalLimit)
        }
        savedHolds.withLock { saved in
            let due = busy && (saved.at.map { now - $0 >= .milliseconds(200) } ?? true)
            let changed =
                saved.hold.buckets.count != hold.buckets.count
                || zip(saved.hold.buckets, hold.buckets).contains {
                    $0.route != $1.route || $0.major != $1.major || $0.hash != $1.hash || abs($0.until - $1.until) >= 0.25
                }
            // A busy window that went quiet is cleared once, so a restart does not wait for it.
            let calmed = !busy && !saved.hold.globalSends.isEmpty
            guard (urgent && changed) || due || calmed,
                let data = try? JSONEncoder().encode(hold)
            else { return }
            if RewrittenFile.write([UInt8](data), to: holdsPath) {
                saved = (busy ? hold : RateLimitHold(buckets: hold.buckets), now)
            }
        }
    }

    /// Runs `write` (a request on `route`) when the channel's send queue gives it its turn, as
    /// `pace` says; nil, unsent, when a newer edit of the same message took its place.
    func paced<T: Sendable>(_ key: String, route: RouteKey, _ pace: SendPace, _ write: () async throws -> T) async throws -> T? {
        guard try await queue.turn(chat: key, priority: pace.priority, replaces: pace.replaces) else { return nil }
        let result: Result<T, any Error>
        do { result = .success(try await write()) } catch { result = .failure(error) }
        let now = ContinuousClock.now
        if let room = limiter.withLock({ $0.room(route, now: now) }) {
            writes.done(chat: key, remaining: room.remaining, resetAt: Date().timeIntervalSince1970 + (room.resetAt - now).inSeconds)
        } else {
            writes.done(chat: key)
        }
        await queue.refresh(chat: key)
        return try result.get()
    }

    /// Waits until the rate limiter lets `endpoint` go out.
    private func admit(_ endpoint: Endpoint) async throws -> RateLimiter.Ticket {
        while true {
            let now = ContinuousClock.now
            switch limiter.withLock({ $0.acquire(endpoint.routeKey, global: endpoint.countsGlobally, now: now) }) {
            case .send(let ticket): return ticket
            case .wait(let until): try await Task.sleep(until: until, clock: .continuous)
            }
        }
    }

    private static func error(_ endpoint: Endpoint, _ response: HTTPResponse) -> DiscordAPIError {
        let body = try? JSONValue.parse(bytes: response.body)
        return DiscordAPIError(
            endpoint: endpoint.description, status: response.status, code: body?["code"]?.intValue,
            message: body?["message"]?.stringValue ?? "")
    }

    private static func backoff(_ attempt: Int) -> Duration {
        .milliseconds(250 << min(attempt, 5)) + .milliseconds(Int.random(in: 0...200))
    }

    private static func seconds(_ duration: Duration) -> String {
        duration.inSeconds.fixedPoint(2)
    }
}
