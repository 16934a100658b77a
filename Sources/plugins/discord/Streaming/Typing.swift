import Logging

/// Keeps "bot is typing…" alive in channels where a run streams: Discord shows it for 10 s per
/// POST, so it is renewed every 8 s until the final arrives or the supervisor goes quiet.
actor Typing {
    private let rest: DiscordREST
    private let logger: Logger
    private var loops: [String: (until: ContinuousClock.Instant, task: Task<Void, Never>)] = [:]
    /// Without news from the supervisor for this long, the indicator stops by itself.
    private let linger: Duration = .seconds(30)
    private let period: Duration = .seconds(8)
    /// Channels that refused the indicator (no permission, gone): left alone this long. Each
    /// refusal is an invalid request, and 10,000 in ten minutes ban the bot's address
    /// (discord-api.md §6); every view would otherwise start the loop, and its 403, again.
    private var refused: [String: ContinuousClock.Instant] = [:]
    private let refusedFor: Duration = .seconds(600)

    init(rest: DiscordREST, logger: Logger) {
        self.rest = rest
        self.logger = logger
    }

    func keep(_ channel: String) {
        if let until = refused[channel] {
            if ContinuousClock.now < until { return }
            refused[channel] = nil
        }
        let until = ContinuousClock.now + linger
        if let loop = loops[channel] {
            loops[channel] = (until, loop.task)
            return
        }
        // Unstructured on purpose: the indicator lives across many notifications and ends on its own.
        let task = Task { await self.renew(channel) }
        loops[channel] = (until, task)
    }

    func stop(_ channel: String) {
        loops.removeValue(forKey: channel)?.task.cancel()
    }

    var activeCount: Int { loops.count }

    private func renew(_ channel: String) async {
        while !Task.isCancelled, let loop = loops[channel], ContinuousClock.now < loop.until {
            do {
                try await rest.triggerTyping(channel: channel)
            } catch is CancellationError {
                return
            } catch let error as DiscordAPIError where error.isPermanent {
                logger.notice("typing in \(channel) refused (\(error)); not tried there for \(refusedFor)")
                refused[channel] = ContinuousClock.now + refusedFor
                loops[channel] = nil
                return
            } catch {
                logger.debug("typing in \(channel): \(error)")
            }
            try? await Task.sleep(for: period)
        }
        if !Task.isCancelled { loops[channel] = nil }
    }
}
