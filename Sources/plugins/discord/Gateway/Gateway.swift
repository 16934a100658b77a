import DiscordPayloads
import FoundationEssentials
import Logging
import PiRelayHTTP
import PiRelaySDK
import WSClient

#if canImport(Glibc)
import Glibc
#endif

/// The Discord gateway connection: connects, heartbeats, identifies or resumes, turns dispatches
/// into `events`, and reconnects until a close code says reconnecting cannot help (then `run`
/// throws `PluginExit.notConfigured`). One connection at a time; each gets a fresh id so tasks
/// left over from an older connection can tell they are stale.
actor Gateway {
    /// Takes each dispatch the relay acts on. The sequence number is saved only after it
    /// returned and the journal it asked for is written (`journaled`), so whatever it took
    /// custody of is never skipped by a resume.
    typealias EventHandler = @Sendable (GatewayEvent) async -> Void
    var handler: EventHandler?

    let rest: DiscordREST
    let token: BotToken
    let store: StateStore
    let resumeWriter: ResumeWriter
    let proxy: ProxySetting
    let logger: Logger

    var resume: ResumeState?
    var sequence: Int?
    var gatewayURL: (url: String, fetched: ContinuousClock.Instant)?
    var connection = 0
    var outbox: AsyncStream<GatewayOutgoing>.Continuation?
    var tracker: HeartbeatTracker?
    var sendLimiter = GatewaySendLimiter()
    var phase: GatewayPhase = .starting
    var lastIdentify: ContinuousClock.Instant?
    /// Why we are closing the current connection ourselves, if we are.
    var leaving: GatewayCloseAction?
    var leavingReason: String?
    var presenceText: String?
    var presenceDue = false
    var lastPresence: ContinuousClock.Instant?
    var presenceScheduled = false
    var sessionHealthy = false
    var stopping = false
    var reconnects = 0
    var dispatches = 0

    /// `journaled`: returns once the inbox journal holds every message the handler took so far;
    /// the saved resume point waits for it.
    init(
        rest: DiscordREST, token: BotToken, store: StateStore, proxy: ProxySetting, logger: Logger,
        journaled: @escaping @Sendable () async -> Void
    ) {
        self.rest = rest
        self.token = token
        self.store = store
        resumeWriter = ResumeWriter(store: store, journaled: journaled)
        self.proxy = proxy
        self.logger = logger
        if let saved = store.load(ResumeState.self, from: ResumeState.file),
            Date().timeIntervalSince1970 - saved.savedAt < 170
        {
            // Discord keeps a disconnected session resumable for a few minutes; older ones would
            // only earn an op 9.
            resume = saved
            sequence = saved.sequence
        }
    }

    /// Connects and keeps the connection up, handing dispatches to `handler`; returns only when
    /// `stop` was called.
    func run(handler: @escaping EventHandler) async throws {
        self.handler = handler
        var failures = 0
        while !stopping && !Task.isCancelled {
            let url: String
            do {
                url = try await connectURL()
            } catch let error as DiscordAPIError where error.status == 401 {
                phase = .stopped
                throw PluginExit.notConfigured(error.tokenRejection)
            } catch {
                failures += 1
                let delay = Self.backoff(failures)
                logger.warning("gateway: could not get the gateway URL: \(token.masking("\(error)")); retrying in \(delay)")
                phase = .reconnecting
                try? await Task.sleep(for: delay)
                continue
            }
            sessionHealthy = false
            let ending = await connectOnce(url: url)
            if stopping { break }
            let action = leaving ?? GatewayCloseAction.after(closeCode: ending.code)
            let summary = leavingReason.map { "closed by the plugin: \($0)" } ?? ending.summary
            leaving = nil
            leavingReason = nil
            reconnects += 1
            switch action {
            case .fatal(let why):
                phase = .stopped
                throw PluginExit.notConfigured(why)
            case .reidentify:
                await forgetSession()
            case .resume:
                break
            }
            failures = sessionHealthy ? 0 : failures + 1
            if failures >= 3 && resume != nil && action == .resume {
                // The resume URL keeps failing: start over with a fresh session on the main URL.
                logger.warning("gateway: \(failures) attempts to resume failed; identifying anew")
                await forgetSession()
            }
            let delay: Duration
            if failures > 0 {
                delay = Self.backoff(failures)
            } else if action == .reidentify {
                // A fresh identify right after losing a session is spread out, as Discord advised.
                delay = .milliseconds(Int.random(in: 1000...5000))
            } else {
                delay = .milliseconds(Int.random(in: 100...600))
            }
            logger.info("gateway: connection ended (\(summary)); \(resume == nil ? "identifying anew" : "resuming") in \(delay)")
            phase = .reconnecting
            try? await Task.sleep(for: delay)
        }
        phase = .stopped
    }

    /// Ends the connection, keeping the session resumable (close code 4000, not 1000) so the next
    /// start resumes and Discord replays what happened in between.
    func stop() {
        stopping = true
        outbox?.yield(.close(code: 4000, reason: "pi-relay-discord stopping"))
    }

    /// Sets the bot's activity to "Watching <text>" (empty text clears it).
    func setPresence(_ text: String) {
        presenceText = text
        presenceDue = true
        sendPresenceIfDue()
    }

    var status: JSONValue {
        var summary: JSONValue = ["phase": .string(phase.rawValue), "reconnects": JSONValue(reconnects), "dispatches": JSONValue(dispatches)]
        if let resume { summary["session"] = .string(String(resume.sessionID.prefix(8))) }
        if let sequence { summary["seq"] = JSONValue(sequence) }
        if let latency = tracker?.latency {
            summary["heartbeatLatencyMs"] = JSONValue(latency.inMilliseconds)
        }
        return summary
    }

    /// The resume URL while a session is known, else the URL from GET /gateway/bot, fetched
    /// again after half an hour (Discord asks clients not to keep it long).
    private func connectURL() async throws -> String {
        if let resume, !resume.resumeURL.isEmpty { return resume.resumeURL }
        if let gatewayURL, ContinuousClock.now - gatewayURL.fetched < .seconds(1800) { return gatewayURL.url }
        let url = try await rest.gatewayURL()
        gatewayURL = (url, .now)
        return url
    }

    func forgetSession() async {
        resume = nil
        sequence = nil
        await store.remove(ResumeState.file)
    }

    static func backoff(_ failures: Int) -> Duration {
        let base = min(60.0, pow(2.0, Double(max(0, failures - 1))))
        return .milliseconds(Int(base * 1000 * Double.random(in: 0.8...1.2)))
    }
}
