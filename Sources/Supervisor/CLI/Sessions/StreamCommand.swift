import ArgumentParser
import FoundationEssentials
import PiRelaySDK
import Supervisor
import SupervisorIO

struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream", abstract: "Print a session's live events until Ctrl-C.",
        discussion:
            "--pretty shows the runs as a chat would, rendered for the terminal by the formatter plugin, with questions and how to answer them.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Flag(help: "Show runs, questions and changes rendered for a terminal instead of raw events.") var pretty = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if pretty && output.json { throw ValidationError("--pretty renders for a terminal; --json prints the raw events") }
    }

    func run() async {
        let client = Home.resolve().client
        if pretty { await RunWatch(client: client, session: session, json: false).follow() }
        do {
            var connection = try client.open(.stream, ["session": .string(session)])
            while case .event(let event)? = try await connection.next() {
                let line = output.json ? event.serialized() : SessionCall.eventLine(event)
                StandardStreams.writeOutput(line + "\n")
            }
            await connection.close()
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
    }
}
