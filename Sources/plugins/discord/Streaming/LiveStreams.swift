import FoundationEssentials
import Logging
import PiRelaySDK

/// Shows `chat.live` updates: one coalescer and one driver task per run and channel (several
/// chats may watch one session, and each shows the run in its own messages). The record (run and
/// channel → message ids) is saved after every new message, so a restarted plugin keeps editing
/// the same messages, and a final can turn them into its chunks.
actor LiveStreams {
    static let file = "runs.json"

    private let rest: DiscordREST
    private let store: StateStore
    private let logger: Logger
    private var runs: [String: LiveRun] = [:]
    private var records: [String: RunRecord]
    private var failures = 0

    init(rest: DiscordREST, store: StateStore, logger: Logger) {
        self.rest = rest
        self.store = store
        self.logger = logger
        records = Self.pruned(store.load([String: RunRecord].self, from: Self.file) ?? [:])
    }

    /// Runs are kept per channel too: the same run shown in two chats is two live views.
    static func key(_ runID: String, channel: String) -> String { runID + "@" + channel }

    /// The nonce of a run's `index`th live message: the final uses it too, so a message posted
    /// just before a crash (and so never recorded) is found again instead of posted twice.
    static func nonce(_ key: String, index: Int) -> String { Nonce.make("live:" + key, index: index) }

    /// False when the update is stale or its run already has its final (nothing to show).
    @discardableResult
    func update(runID: String, target: Target, revision: Int?, chunks: [String], tail: String) -> Bool {
        let key = Self.key(runID, channel: target.postChannel)
        if records[key]?.finished == true { return false }
        if runs[key] == nil { forgetAbandoned() }
        var run = runs[key] ?? LiveRun(coalescer: Coalescer(posted: slots(fromRecord: key)), channel: target.postChannel)
        guard run.coalescer.update(revision: revision, chunks: chunks, tail: tail) else { return false }
        run.lastUpdate = .now
        runs[key] = run
        if run.driver == nil && !run.stopping {
            // Unstructured on purpose: each run's calls go on at their own pace, independent of
            // the notification that started them and of other runs.
            run.driver = Task { await self.drive(key) }
            runs[key] = run
        }
        return true
    }

    /// Runs whose final never came (the supervisor lost them) stop taking memory after a day.
    private func forgetAbandoned() {
        let cutoff = ContinuousClock.now - .seconds(86_400)
        for (id, run) in runs where run.driver == nil && run.lastUpdate < cutoff { runs[id] = nil }
    }

    /// Stops showing `runID` live in `channel` and returns the messages that show it there (from
    /// memory, or from the saved record after a restart). Waits for a call in flight, never
    /// cancels one.
    func finish(_ runID: String, channel: String) async -> (channel: String, slots: [Coalescer.Slot])? {
        let key = Self.key(runID, channel: channel)
        if var run = runs[key] {
            run.stopping = true
            runs[key] = run
            if run.sleeping { run.driver?.cancel() }
            await run.driver?.value
            if let done = runs.removeValue(forKey: key) { return (done.channel, done.coalescer.slots) }
        }
        guard let record = records[key] else { return nil }
        return (record.channel, slots(fromRecord: key))
    }

    /// The final is posted in `channel`: remember the run's messages there as finished so late
    /// live updates for it are ignored, and a replayed final finds them.
    func markFinished(_ runID: String, channel: String, messageIDs: [String], fingerprints: [String]) async {
        records[Self.key(runID, channel: channel)] = RunRecord(
            channel: channel, messageIDs: messageIDs, fingerprints: fingerprints,
            finished: true, updatedAt: Date().timeIntervalSince1970)
        await save()
    }

    var activeCount: Int { runs.count }

    private func slots(fromRecord key: String) -> [Coalescer.Slot] {
        guard let record = records[key] else { return [] }
        return zip(record.messageIDs, record.fingerprints + Array(repeating: "", count: max(0, record.messageIDs.count - record.fingerprints.count)))
            .map { Coalescer.Slot(messageID: $0, fingerprint: $1, lastChange: nil) }
    }

    /// The next call for the run, or nil when there is nothing to do (the driver then ends; the
    /// next update starts a new one).
    private func step(_ key: String) -> (Coalescer.Action, String)? {
        guard var run = runs[key] else { return nil }
        run.sleeping = false
        if run.stopping {
            run.driver = nil
            runs[key] = run
            return nil
        }
        let action = run.coalescer.next(now: .now)
        switch action {
        case .idle:
            run.driver = nil
            runs[key] = run
            return nil
        case .wait:
            run.sleeping = true
        default:
            break
        }
        runs[key] = run
        return (action, run.channel)
    }

    private func drive(_ key: String) async {
        while let (action, channel) = step(key) {
            switch action {
            case .post(let index, let content):
                do {
                    let posted = try await rest.createMessageOrFindRepeat(
                        channel: channel, body: Poster.body(content),
                        nonce: Self.nonce(key, index: index))
                    // A message this run posted before a crash, before it was recorded: bring it up to date.
                    if posted.content != TextFit.clamp(content, to: Poster.limit) {
                        try await rest.editMessage(
                            channel: channel, message: posted.id,
                            body: ["content": .string(content), "allowed_mentions": Poster.allowedMentions(nil)])
                    }
                    let id = posted.id
                    runs[key]?.coalescer.posted(index: index, messageID: id, content: content, now: .now)
                    await record(key)
                } catch {
                    giveUp(key, error, what: "posting live message \(index + 1)", permanentStops: true)
                }
            case .edit(let index, let messageID, let content):
                do {
                    try await rest.editMessage(
                        channel: channel, message: messageID,
                        body: ["content": .string(content), "allowed_mentions": Poster.allowedMentions(nil)])
                    runs[key]?.coalescer.edited(index: index, content: content, now: .now)
                } catch let error as DiscordAPIError where error.isPermanent {
                    // The message is gone or not ours to edit: stop trying to change it.
                    logger.warning("live run \(key): \(error)")
                    runs[key]?.coalescer.edited(index: index, content: content, now: .now)
                } catch {
                    giveUp(key, error, what: "editing live message \(index + 1)", permanentStops: false)
                }
            case .wait(let until):
                try? await Task.sleep(until: until, clock: .continuous)
            case .idle:
                return
            }
        }
    }

    private func giveUp(_ key: String, _ error: any Error, what: String, permanentStops: Bool) {
        failures += 1
        if permanentStops, let apiError = error as? DiscordAPIError, apiError.isPermanent {
            logger.warning("live run \(key): \(what) failed for good (\(apiError)); the final will be posted on its own")
            runs[key]?.stopping = true
            runs[key]?.coalescer.failed(now: .now, retry: .seconds(3600))
            return
        }
        logger.warning("live run \(key): \(what) failed (\(error)); retrying")
        runs[key]?.coalescer.failed(now: .now, retry: .seconds(2))
    }

    private func record(_ key: String) async {
        guard let run = runs[key] else { return }
        records[key] = RunRecord(
            channel: run.channel, messageIDs: run.coalescer.slots.map(\.messageID),
            fingerprints: run.coalescer.slots.map(\.fingerprint), finished: false,
            updatedAt: Date().timeIntervalSince1970)
        await save()
    }

    private func save() async {
        records = Self.pruned(records)
        await store.save(records, to: Self.file)
    }

    /// Finished runs are kept an hour (a replayed final still finds its messages), others two days.
    static func pruned(_ records: [String: RunRecord], now: Double = Date().timeIntervalSince1970) -> [String: RunRecord] {
        records.filter { _, r in now - r.updatedAt < (r.finished ? 3600 : 172_800) }
    }
}
