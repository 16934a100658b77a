/// When a schedule runs: every so many seconds, at the times a cron expression names, or once.
package enum ScheduleRule: Sendable, Equatable {
    case every(seconds: Int)
    case cron(CronExpression)
    /// Runs at the instant it was given and is then removed.
    case once

    /// Reads the state file's form (`every 3600`, `cron 0 9 * * 1-5`, `once`).
    package init(stored text: String) throws(ScheduleError) {
        let words = text.split(separator: " ", maxSplits: 1).map(String.init)
        switch words.first {
        case "every"?:
            guard words.count == 2, let seconds = Int(words[1]), seconds > 0 else { throw ScheduleError("bad interval in \"\(text)\"") }
            self = .every(seconds: seconds)
        case "cron"?:
            guard words.count == 2 else { throw ScheduleError("no cron expression in \"\(text)\"") }
            self = .cron(try CronExpression(words[1]))
        case "once"?: self = .once
        default: throw ScheduleError("\"\(text)\" is not a schedule rule")
        }
    }

    /// The state file's form.
    package var stored: String {
        switch self {
        case .every(let seconds): "every \(seconds)"
        case .cron(let expression): "cron " + expression.text
        case .once: "once"
        }
    }

    /// The run after `due` (the one that just came), in `zone`; nil when there is none.
    package func next(after due: Int64, in zone: ZoneRules) -> Int64? {
        switch self {
        case .every(let seconds): due + Int64(seconds)
        case .cron(let expression): expression.next(after: due, in: zone)
        case .once: nil
        }
    }

    /// The shortest time between two runs, checked against `schedules.minimumIntervalSeconds`:
    /// an interval's length, or the closest two of a cron expression's next runs.
    package func shortestGap(from start: Int64, in zone: ZoneRules) -> Int? {
        switch self {
        case .every(let seconds): return seconds
        case .once: return nil
        case .cron(let expression):
            var gap: Int?
            var previous = expression.next(after: start, in: zone)
            for _ in 0..<64 {
                guard let from = previous, let next = expression.next(after: from, in: zone) else { break }
                gap = min(gap ?? Int.max, Int(next - from))
                previous = next
            }
            return gap
        }
    }
}
