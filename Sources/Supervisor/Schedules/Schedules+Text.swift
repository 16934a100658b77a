import FoundationEssentials
import PiRelaySDK

extension Schedules {
    /// A schedule for people and `--json`: its next run also as the zone's wall-clock time.
    package func json(_ schedule: Schedule) async -> JSONValue {
        let name = await sessions.session(id: schedule.sessionID)?.name
        var object: JSONValue = [
            "number": JSONValue(schedule.number), "session": .string(schedule.sessionID), "label": .string(schedule.label),
            "rule": .string(schedule.rule), "zone": .string(schedule.zone), "missed": .string(schedule.missed.rawValue),
            "next": .string(ISO8601.string(schedule.next)), "nextLocal": .string(localTime(schedule.next, zone: schedule.zone)),
            "prompt": .string(schedule.prompt), "runs": JSONValue(schedule.runs), "createdBy": .string(schedule.createdBy),
        ]
        if let name { object["sessionName"] = .string(name) }
        if let last = schedule.lastRun { object["lastRun"] = .string(ISO8601.string(last)) }
        if schedule.waitsForZone == true { object["waitsForZone"] = true }
        return object
    }

    /// One line a schedule: `#2 every weekday at 09:00 (Europe/Berlin) in api, next Fri 27 Nov 09:00: check CI`.
    package func line(_ schedule: Schedule) async -> String {
        let name = await sessions.session(id: schedule.sessionID)?.name ?? schedule.sessionID
        let prompt = schedule.prompt.count > 80 ? String(schedule.prompt.prefix(79)) + "…" : schedule.prompt
        let next = schedule.waitsForZone == true ? "waiting for its zone to be readable" : "next \(localTime(schedule.next, zone: schedule.zone))"
        return "#\(schedule.number) \(schedule.label) (\(schedule.zone)) in \(name), \(next): \(prompt)"
    }

    /// `Fri 27 Nov 09:00` on the zone's clock.
    package func localTime(_ date: Date, zone name: String) -> String {
        let rules = (try? zone(name)) ?? .utc
        let time = rules.civil(at: Int64(date.timeIntervalSince1970.rounded(.down)))
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let clock = ScheduleRequest.clockText(time.hour, time.minute)
        return "\(weekdays[time.weekday]) \(time.day) \(months[time.month - 1]) \(time.year) \(clock)"
    }
}
