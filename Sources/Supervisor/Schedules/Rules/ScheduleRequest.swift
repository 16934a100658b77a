/// What a person asked for in `/schedule …` or `pi-relayd schedule add SESSION …`, read from
/// their words:
///
/// - `every 90s|5m|1h|1h30m|2d|hour|day PROMPT`: at that interval from now;
/// - `every day|weekday|weekend|monday…sunday at HH:MM PROMPT`: on those days at that time;
/// - `at HH:MM PROMPT`: once, the next time the clock shows it;
/// - `cron MIN HOUR DAY MONTH WEEKDAY PROMPT` or `cron @daily PROMPT`: crontab(5)'s times;
///
/// then, before the prompt, `tz=Area/City` (else `schedules.timeZone`, else the system's zone)
/// and `missed=run|skip` (what a run missed while pi-relayd was down does; `run` by default).
package struct ScheduleRequest: Sendable, Equatable {
    package enum When: Sendable, Equatable {
        case every(seconds: Int)
        case cron(String)
        case once(hour: Int, minute: Int)
    }

    package var when: When
    /// The person's words for the rule (`every 1h`, `every weekday at 09:00`), for lists.
    package var label: String
    package var zone: String?
    package var missed: MissedRunPolicy?
    package var prompt: String

    package static let usage =
        "/schedule every 1h PROMPT · /schedule every day at 09:00 PROMPT · /schedule at 09:00 PROMPT · /schedule cron 0 9 * * 1-5 PROMPT; "
        + "before the prompt, tz=Area/City and missed=run|skip"

    package init(_ text: String) throws(ScheduleError) {
        // Read word by word up to the prompt, which is kept as written: its lines and indents are
        // the user's (a list, some code), as a chat prompt's are.
        var rest = Substring(text)
        func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" || character.isNewline }
        func peek() -> String? {
            let word = rest.drop(while: isSpace).prefix { !isSpace($0) }
            return word.isEmpty ? nil : String(word)
        }
        func take() -> String? {
            guard let word = peek() else { return nil }
            rest = rest.drop(while: isSpace).dropFirst(word.count)
            return word
        }
        guard let head = take()?.lowercased() else { throw ScheduleError("say when: \(Self.usage)") }
        switch head {
        case "every":
            guard let what = take() else { throw ScheduleError("every what? e.g. every 1h PROMPT, every day at 09:00 PROMPT") }
            if let days = Self.days[what.lowercased()], peek()?.lowercased() == "at" {
                _ = take()
                let (hour, minute) = try Self.clock(take())
                when = .cron("\(minute) \(hour) * * \(days)")
                label = "every \(what.lowercased()) at " + Self.clockText(hour, minute)
            } else {
                guard let seconds = Self.duration(what) else {
                    throw ScheduleError("\"\(what)\" is not an interval such as 90s, 5m, 1h, 1h30m or 2d (or day|weekday|monday… at HH:MM)")
                }
                when = .every(seconds: seconds)
                label = "every " + Self.durationText(seconds)
            }
        case "at":
            let (hour, minute) = try Self.clock(take())
            when = .once(hour: hour, minute: minute)
            label = "at " + Self.clockText(hour, minute)
        case "cron":
            guard let first = take() else { throw ScheduleError("cron needs five fields: cron 0 9 * * 1-5 PROMPT") }
            var fields = [first]
            if !first.hasPrefix("@") {
                for _ in 0..<4 {
                    guard let field = take() else { throw ScheduleError("cron needs five fields: cron 0 9 * * 1-5 PROMPT") }
                    fields.append(field)
                }
            }
            let expression = fields.joined(separator: " ")
            // Checked here, so a mistake is answered before anything is saved.
            _ = try CronExpression(expression)
            if !first.hasPrefix("@"), let sixth = peek(), Self.looksLikeCronField(sixth) {
                throw ScheduleError(
                    "cron takes five fields (minute hour day month weekday), and \"\(sixth)\" looks like a sixth: a seconds field "
                        + "first (Quartz, Spring) is not read. Write the prompt after the five: cron 0 9 * * 1-5 PROMPT")
            }
            when = .cron(expression)
            label = "cron " + expression
        default:
            throw ScheduleError("\"\(head)\" is not a way to schedule: \(Self.usage)")
        }
        while let option = peek()?.lowercased(), option.hasPrefix("tz=") || option.hasPrefix("missed=") {
            let word = take() ?? ""
            let value = String(word.drop { $0 != "=" }.dropFirst())
            if option.hasPrefix("tz=") {
                guard ZoneRules.isValidName(value) else { throw ScheduleError("tz=\(value) is not a time zone name such as Europe/Berlin or UTC") }
                zone = value
            } else {
                guard let policy = MissedRunPolicy(rawValue: value.lowercased()) else {
                    throw ScheduleError("missed= takes run or skip, not \(value)")
                }
                missed = policy
            }
        }
        prompt = String(rest.drop(while: isSpace)).trimmed()
        guard !prompt.isEmpty else { throw ScheduleError("what should the session be asked? Put the prompt after the time: \(Self.usage)") }
        // Options written after the prompt would reach pi as its last words, and not count.
        if let last = prompt.split(whereSeparator: isSpace).last, last.hasPrefix("tz=") || last.hasPrefix("missed=") {
            throw ScheduleError("\(last) goes before the prompt, after the time: e.g. at 09:00 \(last) PROMPT")
        }
    }

    /// A word a sixth cron field would be: `*`, or numbers with `*`, `,`, `-`, `/` or `?`, or
    /// weekday or month names in a range or list (`MON-FRI`). A plain number, or `-` alone, may
    /// start a prompt.
    static func looksLikeCronField(_ word: String) -> Bool {
        let operators = Set("*,-/?")
        if word.allSatisfy({ $0.isASCII && ($0.isNumber || operators.contains($0)) }) {
            return word.contains { $0 == "*" || $0 == "?" } || (word.contains { $0.isNumber } && word.contains { operators.contains($0) })
        }
        let names = word.split(whereSeparator: { $0 == "-" || $0 == "," })
        return names.count > 1 && names.allSatisfy { $0.count == 3 && $0.allSatisfy(\.isLetter) }
    }

    /// Cron's day-of-week field for `every WORD at`.
    static let days: [String: String] = [
        "day": "*", "weekday": "1-5", "weekdays": "1-5", "weekend": "0,6", "sunday": "0", "monday": "1", "tuesday": "2",
        "wednesday": "3", "thursday": "4", "friday": "5", "saturday": "6", "sun": "0", "mon": "1", "tue": "2", "wed": "3",
        "thu": "4", "fri": "5", "sat": "6",
    ]

    /// `HH:MM` (or `H:MM`), 24-hour.
    static func clock(_ word: String?) throws(ScheduleError) -> (Int, Int) {
        let parts = (word ?? "").split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2, (0...23).contains(hour),
            (0...59).contains(minute)
        else { throw ScheduleError("\"\(word ?? "")\" is not a time of day such as 09:00 or 17:30 (24-hour)") }
        return (hour, minute)
    }

    static func clockText(_ hour: Int, _ minute: Int) -> String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// `90s`, `5m`, `1h30m`, `2d`; a unit alone (`hour`) is one of it.
    static func duration(_ word: String) -> Int? {
        let named = ["second": 1, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800]
        if let seconds = named[word.lowercased()] { return seconds }
        var total = 0
        var number: Int?
        for character in word.lowercased() {
            if let digit = character.wholeNumberValue, character.isASCII {
                number = (number ?? 0) * 10 + digit
                guard number! < 1_000_000 else { return nil }
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            case "w": unit = 604_800
            default: return nil
            }
            guard let count = number else { return nil }
            total += count * unit
            number = nil
        }
        return number == nil && total > 0 ? total : nil
    }

    /// `1h30m` for 5400.
    package static func durationText(_ seconds: Int) -> String {
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}
