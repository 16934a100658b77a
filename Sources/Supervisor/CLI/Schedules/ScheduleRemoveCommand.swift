import ArgumentParser
import PiRelaySDK
import Supervisor

struct ScheduleRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a scheduled prompt by its number.")
    @Argument(help: "The schedule's number, as list shows it.") var number: Int
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.scheduleRemove, ["number": JSONValue(number)], output) { result in
            "removed #\(result["number"]?.intValue ?? number) (\(result["label"]?.stringValue ?? ""))"
        }
    }
}
