import Testing

@testable import Supervisor

@Suite struct ScheduleRequestTests {
    /// The prompt is kept as written: a list's lines and a snippet's indents are the user's.
    @Test func thePromptKeepsItsLinesAndIndents() throws {
        let request = try ScheduleRequest("every day at 09:00 tz=UTC  Review:\n- CI\n- open PRs\n    code()")
        #expect(request.prompt == "Review:\n- CI\n- open PRs\n    code()")
        #expect(request.zone == "UTC" && request.label == "every day at 09:00")
        #expect(try ScheduleRequest("cron 0 9 * * 1-5\nmissed=skip\tcheck").prompt == "check")
    }

    @Test func theWaysToSayWhen() throws {
        let hourly = try ScheduleRequest("every 1h check the build")
        #expect(hourly.when == .every(seconds: 3600) && hourly.label == "every 1h" && hourly.prompt == "check the build")
        #expect(try ScheduleRequest("every 1h30m x").when == .every(seconds: 5400))
        #expect(try ScheduleRequest("every 90s x").label == "every 1m30s")
        #expect(try ScheduleRequest("every hour x").when == .every(seconds: 3600))
        let weekdays = try ScheduleRequest("every weekday at 9:05 standup notes")
        #expect(weekdays.when == .cron("5 9 * * 1-5") && weekdays.label == "every weekday at 09:05")
        #expect(try ScheduleRequest("every friday at 17:00 x").when == .cron("0 17 * * 5"))
        #expect(try ScheduleRequest("at 09:00 summarise the night").when == .once(hour: 9, minute: 0))
        let cron = try ScheduleRequest("cron 0 9 * * 1-5 tz=Europe/Berlin missed=skip run the tests")
        #expect(cron.when == .cron("0 9 * * 1-5") && cron.zone == "Europe/Berlin" && cron.missed == .skip)
        #expect(cron.prompt == "run the tests")
        #expect(try ScheduleRequest("cron @daily x").when == .cron("@daily"))
    }

    @Test func mistakesSayWhatToWrite() {
        for (text, words) in [
            ("", "say when"), ("every", "every what"), ("every 5x hi", "not an interval"), ("at 25:00 hi", "time of day"),
            ("at 9 hi", "time of day"), ("cron 0 9 * hi", "five fields"), ("cron 0 9 * * mon-xyz hi", "weekday"),
            ("every 1h", "what should the session be asked"),
            ("every 1h tz=../x hi", "time zone name"), ("every 1h missed=maybe hi", "run or skip"), ("soon hi", "not a way"),
            // A seconds field first (Quartz, Spring): its sixth field would start the prompt.
            ("cron 0 0 9 * * 1-5 check CI", "looks like a sixth"), ("cron 0 0 9 * * * check CI", "looks like a sixth"),
            ("cron 0 0 9 ? * MON-FRI check CI", "cron"),
            // Options after the prompt would be sent to pi as its words.
            ("at 09:00 check CI tz=Europe/Berlin", "before the prompt"), ("every 1h check CI missed=skip", "before the prompt"),
        ] {
            do {
                let request = try ScheduleRequest(text)
                Issue.record("\(text) was read as \(request)")
            } catch {
                #expect(error.description.contains(words), "\(text): \(error)")
            }
        }
    }

    /// What reads like a cron field, a number or an option inside a prompt stays the prompt's.
    @Test func promptsThatOnlyLookLikeMoreAreKept() throws {
        #expect(try ScheduleRequest("cron 0 9 * * 1-5 3 checks failed: look").prompt == "3 checks failed: look")
        #expect(try ScheduleRequest("every 1h export TZ=UTC and run the tests").prompt == "export TZ=UTC and run the tests")
        #expect(try ScheduleRequest("every 1h - check CI").prompt == "- check CI")
    }
}
