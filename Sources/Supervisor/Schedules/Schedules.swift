import FoundationEssentials
import Logging
import PiRelaySDK

/// The scheduled prompts (`/schedule`, `pi-relayd schedule`): kept in `state/schedules.json`
/// (saved before each run is sent, so a kill -9 neither loses a schedule nor runs one twice), run into
/// their sessions as the chats' prompts are (their output goes to the chats watching), and as a
/// follow-up when the session is busy.
package actor Schedules {
    private var table: ScheduleTable
    private let store: StateFile<Schedule>
    let sessions: Sessions
    private let prompter: PromptSender
    private let defaultZone: String
    private let zoneFolder: String?
    private let logger: Logger
    private var zones: [String: ZoneRules] = [:]
    /// Why the last save failed while what is saved differs from what runs (a run's next time
    /// not written), until a save succeeds; `status` shows it. An add or removal that cannot be
    /// saved is undone instead, and says so.
    package private(set) var saveError: String?
    /// Wakes the run loop early: a schedule was added or removed.
    private let alarm = ScheduleAlarm()
    /// The schedules whose last run still waits to be taken by its session (a compaction, a pi
    /// starting): a run due meanwhile is not sent as well, where it would pile up behind it.
    private var sending: Set<Int> = []
    /// After a save that failed, when the due runs are tried again (they are not sent unsaved).
    private var retryUnsavedAt: Date?
    static let unsavedRetry: TimeInterval = 30
    /// How long a run waits for a terminal session's pi to attach again.
    static let terminalWait: Duration = .seconds(30)

    package init(
        store: StateFile<Schedule>, saved: [Schedule], settings: ScheduleSettings, sessions: Sessions, prompter: PromptSender,
        logger: Logger, zoneFolder: String? = nil
    ) {
        table = ScheduleTable(saved: saved, minimumInterval: settings.minimumIntervalSeconds)
        self.store = store
        self.sessions = sessions
        var sender = prompter
        // A scheduled prompt never cuts into a run, whatever sessions.busyPolicy says for chats.
        sender.busyBehavior = PiStreamingBehavior.followUp.rawValue
        sender.freshPerMessage = false
        self.prompter = sender
        defaultZone = settings.timeZone ?? SystemZone.name()
        self.zoneFolder = zoneFolder
        self.logger = logger
    }

    package var all: [Schedule] { table.schedules }

    /// Adds a schedule from a person's words (`every 1h check CI`) for `session`.
    /// Throws `ScheduleError` for words it cannot read, `RemoteError` when the schedule cannot be
    /// saved (a full disk): a schedule a restart would forget is not made.
    package func add(
        _ words: String, session: PiSession, createdBy: String, user: String? = nil, now: Date = Date()
    ) async throws -> Schedule {
        let request = try ScheduleRequest(words)
        let schedule = try table.add(request, sessionID: session.id, createdBy: createdBy, user: user, defaultZone: defaultZone, now: now) {
            (name) throws(ZoneError) in try self.zone(name)
        }
        let unsaved = saveError
        guard save() else {
            _ = table.remove(schedule.number)
            // Undone, the file says what the schedules are (as much as it did before).
            defer { saveError = unsaved }
            throw RemoteError(code: .internal, message: "cannot save the schedules (\(saveError ?? "")): nothing was scheduled")
        }
        let name = await session.name
        logger.info(
            "schedule \(schedule.number) added for \(name) by \(createdBy): \(schedule.label) (\(schedule.zone)), next \(schedule.next)")
        await alarm.ring()
        return schedule
    }

    /// nil when there is no schedule `number`; throws when the removal cannot be saved, and the
    /// schedule stays (a restart would bring it back).
    package func remove(_ number: Int) async throws(RemoteError) -> Schedule? {
        guard let gone = table.remove(number) else { return nil }
        let unsaved = saveError
        guard save() else {
            table.restore(gone)
            defer { saveError = unsaved }
            throw RemoteError(code: .internal, message: "cannot save the schedules (\(saveError ?? "")): #\(number) stays")
        }
        logger.info("schedule \(number) removed")
        await alarm.ring()
        return gone
    }

    /// `users revoke`: the schedules the user made go with them; they no longer may prompt.
    /// `reason` ends the log line.
    package func removeAll(
        madeBy user: String, on messenger: String, inChats chats: Set<String>, reason: String = "was revoked"
    ) async -> [Schedule] {
        let gone = table.removeAll(madeBy: user, on: messenger, inChats: chats)
        guard !gone.isEmpty else { return [] }
        save()
        for schedule in gone { logger.notice("schedule \(schedule.number) (\(schedule.label)) removed: \(user) \(reason) on \(messenger)") }
        await alarm.ring()
        return gone
    }

    /// Runs what is due, sleeping until the next is, until cancelled. Each run is sent on its
    /// own: one that waits for its session (a compaction, a pi starting) holds up no other.
    package func run() async {
        await withDiscardingTaskGroup { sends in
            while !Task.isCancelled {
                for schedule in await runDue(now: Date()) {
                    sends.addTask { await self.send(schedule) }
                }
                var delay = table.nextDue.map { max(0, $0.timeIntervalSinceNow) } ?? 3600
                if let retry = retryUnsavedAt { delay = max(delay, retry.timeIntervalSinceNow) }
                await alarm.sleep(for: .milliseconds(Int(min(delay, 3600) * 1000) + 5))
            }
            sends.cancelAll()
        }
    }

    /// Moves every schedule due at `now` on, tells the chats of those skipped or dropped, and
    /// returns the runs to send. Nothing is sent that is not saved first: a kill -9 during the
    /// sends neither sends them again on start nor loses them, and while the schedules cannot
    /// be saved (a full disk) the due runs wait, and are tried again every 30 s.
    package func runDue(now: Date) async -> [Schedule] {
        if let retry = retryUnsavedAt, now < retry { return [] }
        let before = table
        let actions = table.due(now: now) { name in try? self.zone(name) }
        guard !actions.isEmpty else { return [] }
        let told = saveError != nil
        guard save() else {
            table = before
            retryUnsavedAt = now.addingTimeInterval(Self.unsavedRetry)
            if !told {
                for case .run(let schedule) in actions {
                    await tell(
                        schedule, "error",
                        "⏰ Schedule #\(schedule.number) (\(schedule.label)) cannot run now: the schedules cannot be saved "
                            + "(\(saveError ?? "")), and a run not saved could run twice. It runs once they can be.")
                }
            }
            return []
        }
        retryUnsavedAt = nil
        var runs: [Schedule] = []
        for action in actions {
            switch action {
            case .run(let schedule):
                guard !sending.contains(schedule.number) else {
                    logger.notice("schedule \(schedule.number) (\(schedule.label)) is due while its last run still waits; not sent again")
                    continue
                }
                sending.insert(schedule.number)
                runs.append(schedule)
            case .skipped(let schedule, let missedAt):
                logger.notice("schedule \(schedule.number) (\(schedule.label)) missed its run at \(missedAt) and skips it (missed=skip)")
                await tell(
                    schedule, "info",
                    "⏰ Schedule #\(schedule.number) (\(schedule.label)) missed its run due \(ISO8601.string(missedAt)) (pi-relayd was "
                        + "not running then, or the machine slept) and skipped it, as its missed=skip says.")
            case .dropped(let schedule, let reason):
                logger.warning("schedule \(schedule.number) (\(schedule.label)) removed: \(reason)")
                await tell(schedule, "warning", "⏰ Schedule #\(schedule.number) (\(schedule.label)) is removed: \(reason).")
            case .waitsForZone(let schedule, let reason):
                logger.warning("schedule \(schedule.number) (\(schedule.label)) waits: \(reason)")
                await tell(
                    schedule, "warning",
                    "⏰ Schedule #\(schedule.number) (\(schedule.label)) cannot work out its next run: \(reason). It is kept and "
                        + "runs again once the zone can be read (looked at every hour); /schedule cancel \(schedule.number) removes it.")
            case .zoneBack(let schedule):
                logger.notice("schedule \(schedule.number) (\(schedule.label)) can read its time zone \(schedule.zone) again")
                await tell(
                    schedule, "info",
                    "⏰ Schedule #\(schedule.number) (\(schedule.label)) can read its time zone \(schedule.zone) again; next run "
                        + "\(localTime(schedule.next, zone: schedule.zone)).")
            }
        }
        return runs
    }

    private func send(_ schedule: Schedule) async {
        defer { sending.remove(schedule.number) }
        guard let session = await sessions.session(id: schedule.sessionID) else {
            // This schedule, not a new one that took its number meanwhile.
            if table.schedules.contains(where: { $0.number == schedule.number && $0.createdAt == schedule.createdAt }) {
                _ = table.remove(schedule.number)
                save()
            }
            logger.warning("schedule \(schedule.number) (\(schedule.label)) removed: its session \(schedule.sessionID) has ended")
            return
        }
        let name = await session.name
        // A terminal's pi reconnects within seconds (a daemon restart, pi's /reload): the run
        // waits for it a little, rather than being lost to a blink.
        if session.terminal != nil {
            let deadline = ContinuousClock.now + Self.terminalWait
            while await !session.isAttachedTerminal, ContinuousClock.now < deadline {
                do { try await Task.sleep(for: .milliseconds(250)) } catch { return }
            }
        }
        do {
            let outcome = try await prompter.prompt(
                session, kind: .send, text: schedule.prompt, images: [], origin: "schedule", echo: "⏰ " + schedule.prompt)
            logger.info("schedule \(schedule.number) ran in \(name): \(outcome.status.rawValue)")
        } catch {
            logger.warning("schedule \(schedule.number) could not prompt \(name): \(error)")
            // Counted as run (and a one-off removed) already: the chats watching must hear that
            // this one did not.
            await tell(schedule, "error", "⏰ Schedule #\(schedule.number) (\(schedule.label)) could not prompt \(name): \(error)")
        }
    }

    /// A word to the chats watching the schedule's session.
    private func tell(_ schedule: Schedule, _ kind: String, _ text: String) async {
        await prompter.observer.session(schedule.sessionID, did: .notice(kind: kind, text: text))
    }

    /// A zone by name, read once.
    func zone(_ name: String) throws(ZoneError) -> ZoneRules {
        if let known = zones[name] { return known }
        let rules = try ZoneRules.named(name, directory: zoneFolder)
        zones[name] = rules
        return rules
    }

    @discardableResult
    private func save() -> Bool {
        do {
            try store.save(table.schedules)
            if saveError != nil { logger.notice("the schedules are saved again") }
            saveError = nil
            return true
        } catch {
            if saveError == nil { logger.error("cannot save the schedules: \(error)") }
            saveError = "\(error)"
            return false
        }
    }
}
