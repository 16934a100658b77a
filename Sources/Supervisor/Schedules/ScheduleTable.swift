import FoundationEssentials
import PiRelaySDK

/// The schedules and what is due: a pure state machine (no clock, no files, no sessions), driven
/// by `Schedules` with the time and the zones, and tested with made-up times.
package struct ScheduleTable: Sendable {
    /// What the caller does after a change of the table.
    package enum Action: Sendable, Equatable {
        /// Send the schedule's prompt to its session now.
        case run(Schedule)
        /// A run was missed (pi-relayd was down, or the machine slept) and left out, as asked.
        case skipped(Schedule, missedAt: Date)
        /// Removed: it has no run to come (`reason`).
        case dropped(Schedule, reason: String)
        /// Kept, but its next run cannot be worked out: its zone cannot be read (`reason`).
        case waitsForZone(Schedule, reason: String)
        /// Its zone can be read again, and it runs on from its next time.
        case zoneBack(Schedule)
    }

    /// How often a schedule whose zone cannot be read looks again: a tzdata package put back
    /// (Debian's tzdata-legacy for `US/Eastern`) brings it back without a restart.
    package static let zoneRetry: TimeInterval = 3600

    /// Later than this, a run counts as missed: its `missed` policy decides.
    package static let lateAfter: TimeInterval = 60

    package private(set) var schedules: [Schedule]
    /// `schedules.minimumIntervalSeconds`.
    package let minimumInterval: Int

    package init(saved: [Schedule], minimumInterval: Int) {
        schedules = saved.sorted { $0.number < $1.number }
        self.minimumInterval = minimumInterval
    }

    /// Adds what `request` asks for, for `sessionID`, and returns it.
    package mutating func add(
        _ request: ScheduleRequest, sessionID: String, createdBy: String, user: String? = nil, defaultZone: String, now: Date,
        zone: (String) throws(ZoneError) -> ZoneRules
    ) throws(ScheduleError) -> Schedule {
        let zoneName = request.zone ?? defaultZone
        let rules: ZoneRules
        do { rules = try zone(zoneName) } catch { throw ScheduleError(error.description) }
        let start = Int64(now.timeIntervalSince1970.rounded(.down))
        let rule: ScheduleRule
        let first: Int64
        switch request.when {
        case .every(let seconds):
            rule = .every(seconds: seconds)
            first = start + Int64(seconds)
        case .cron(let text):
            let expression = try CronExpression(text)
            rule = .cron(expression)
            guard let next = expression.next(after: start, in: rules) else { throw ScheduleError("cron \(text) never runs") }
            first = next
        case .once(let hour, let minute):
            rule = .once
            var day = rules.civil(at: start)
            (day.hour, day.minute, day.second) = (hour, minute, 0)
            // The next time the clock shows it: in a repeated hour's second pass, that is its
            // second instant.
            var instant = rules.instants(of: day).first { $0 > start } ?? rules.instant(of: day)
            if instant <= start {
                let (year, month, date) = CivilTime.civil(fromDays: CivilTime.days(year: day.year, month: day.month, day: day.day) + 1)
                instant = rules.instant(of: CivilTime(year: year, month: month, day: date, hour: hour, minute: minute))
            }
            first = instant
        }
        if let gap = rule.shortestGap(from: start, in: rules), gap < minimumInterval {
            throw ScheduleError(
                "\(request.label) would run every \(ScheduleRequest.durationText(gap)): the shortest allowed is \(ScheduleRequest.durationText(minimumInterval)) (schedules.minimumIntervalSeconds)"
            )
        }
        let schedule = Schedule(
            number: (schedules.map(\.number).max() ?? 0) + 1, sessionID: sessionID, prompt: request.prompt, rule: rule.stored,
            label: request.label, zone: zoneName, missed: request.missed ?? .run, next: Date(timeIntervalSince1970: TimeInterval(first)),
            createdAt: now, createdBy: createdBy, createdByUser: user)
        schedules.append(schedule)
        return schedule
    }

    /// Removes schedule `number`; nil when there is none.
    package mutating func remove(_ number: Int) -> Schedule? {
        guard let index = schedules.firstIndex(where: { $0.number == number }) else { return nil }
        return schedules.remove(at: index)
    }

    /// Puts back a schedule just removed (its removal could not be saved).
    package mutating func restore(_ schedule: Schedule) {
        schedules.append(schedule)
        schedules.sort { $0.number < $1.number }
    }

    /// Removes every schedule of a session (it ended for good).
    package mutating func removeAll(session id: String) -> [Schedule] {
        schedules.extractAll { $0.sessionID == id }
    }

    /// Removes every schedule a revoked user made (`Schedule.isMade`).
    package mutating func removeAll(madeBy user: String, on messenger: String, inChats chats: Set<String>) -> [Schedule] {
        schedules.extractAll { $0.isMade(by: user, on: messenger, inChats: chats) }
    }

    /// When the next schedule is due; nil when there are none.
    package var nextDue: Date? { schedules.map(\.next).min() }

    /// Everything due at `now`, each once: a schedule late by more than `lateAfter` follows its
    /// missed policy. Each moves on to its first run after `now` (several missed runs never pile
    /// up); a `once` schedule, or one whose rule cannot be read any more, is removed.
    package mutating func due(now: Date, zone: (String) -> ZoneRules?) -> [Action] {
        var actions: [Action] = []
        let current = Int64(now.timeIntervalSince1970.rounded(.down))
        var kept: [Schedule] = []
        for var schedule in schedules {
            guard schedule.next <= now else {
                if let sooner = Self.sooner(schedule, current: current, zone: zone) { schedule.next = sooner }
                kept.append(schedule)
                continue
            }
            if schedule.waitsForZone == true {
                kept.append(contentsOf: retryZone(&schedule, now: now, current: current, zone: zone, actions: &actions))
                continue
            }
            let dueAt = schedule.next
            let late = now.timeIntervalSince(dueAt) > Self.lateAfter
            if late && schedule.missed == .skip {
                actions.append(.skipped(schedule, missedAt: dueAt))
            } else {
                schedule.lastRun = now
                schedule.runs += 1
                actions.append(.run(schedule))
            }
            guard let rule = try? ScheduleRule(stored: schedule.rule) else {
                actions.append(.dropped(schedule, reason: "its rule \(schedule.rule) cannot be read any more"))
                continue
            }
            guard let rules = zone(schedule.zone) else {
                // Kept rather than dropped: the user's schedule outlives a tzdata upgrade that
                // moved its zone, and the chats hear why it stopped.
                if rule == .once { continue }
                schedule.waitsForZone = true
                schedule.next = now.addingTimeInterval(Self.zoneRetry)
                actions.append(.waitsForZone(schedule, reason: Self.unreadable(schedule.zone)))
                kept.append(schedule)
                continue
            }
            var next = rule.next(after: Int64(dueAt.timeIntervalSince1970), in: rules)
            if case .every(let seconds) = rule, let from = next, from <= current {
                // Keeps the phase: the next run is the first of the interval's beats after now.
                next = from + (current - from) / Int64(seconds) * Int64(seconds) + Int64(seconds)
            } else if let from = next, from <= current {
                next = rule.next(after: current, in: rules)
            }
            guard let next else {
                if rule != .once { actions.append(.dropped(schedule, reason: "it has no run to come")) }
                continue
            }
            schedule.next = Date(timeIntervalSince1970: TimeInterval(next))
            kept.append(schedule)
        }
        schedules = kept
        return actions
    }

    /// The run a schedule's rule names after `current`, when it comes before the one it waits
    /// for: only when the clock was set back (a VM snapshot restored, NTP stepping), as the next
    /// run is always the rule's first after a time already past. Without this, an hourly schedule
    /// would wait for the old time to come round again, a day after a day's step.
    private static func sooner(_ schedule: Schedule, current: Int64, zone: (String) -> ZoneRules?) -> Date? {
        guard schedule.waitsForZone != true, let rule = try? ScheduleRule(stored: schedule.rule), rule != .once,
            let rules = zone(schedule.zone), let next = rule.next(after: current, in: rules)
        else { return nil }
        let date = Date(timeIntervalSince1970: TimeInterval(next))
        return date < schedule.next ? date : nil
    }

    /// A schedule waiting for its zone, due for another look: back on its rule's next run after
    /// `now` (the runs missed while it waited are not made up), or another wait.
    private func retryZone(
        _ schedule: inout Schedule, now: Date, current: Int64, zone: (String) -> ZoneRules?, actions: inout [Action]
    ) -> [Schedule] {
        guard let rules = zone(schedule.zone) else {
            schedule.next = now.addingTimeInterval(Self.zoneRetry)
            return [schedule]
        }
        guard let rule = try? ScheduleRule(stored: schedule.rule), let next = rule.next(after: current, in: rules) else {
            actions.append(.dropped(schedule, reason: "it has no run to come"))
            return []
        }
        schedule.waitsForZone = nil
        schedule.next = Date(timeIntervalSince1970: TimeInterval(next))
        actions.append(.zoneBack(schedule))
        return [schedule]
    }

    private static func unreadable(_ zone: String) -> String {
        "its time zone \(zone) cannot be read any more (was tzdata changed? Debian keeps old names such as US/Eastern in "
            + "tzdata-legacy)"
    }
}
