import ArgumentParser
import PiRelaySDK
import Supervisor

struct ScheduleAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a scheduled prompt to a session.",
        discussion: """
            WHEN is one of: every 90s|5m|1h|1h30m|2d, every day|weekday|weekend|monday…sunday at HH:MM, \
            at HH:MM (once), cron MIN HOUR DAY MONTH WEEKDAY (or cron @daily). Then, before the prompt, \
            tz=Area/City (default schedules.timeZone, else the machine's zone) and missed=run|skip (a run \
            missed while pi-relayd was down runs once on start, or is skipped). Example: \
            pi-relayd schedule add api every weekday at 09:00 tz=Europe/Berlin check the overnight CI
            """)
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(parsing: .captureForPassthrough, help: "WHEN [tz=ZONE] [missed=run|skip] PROMPT") var words: [String] = []
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.scheduleAdd, ["session": .string(session), "schedule": .string(words.joined(separator: " "))], output) { result in
            "#\(result["number"]?.intValue ?? 0) \(result["label"]?.stringValue ?? "") (\(result["zone"]?.stringValue ?? "")), next \(result["nextLocal"]?.stringValue ?? "")"
        }
    }
}
