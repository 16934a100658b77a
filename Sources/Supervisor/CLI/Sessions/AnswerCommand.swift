import ArgumentParser
import Supervisor
import SupervisorIO

struct AnswerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer", abstract: "Answer an open question: yes/no for confirm, an option number or text for select, text for input/editor.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "Question id (or unique prefix, or its number in `questions`).") var id: String
    @Argument(help: "The answer.") var value: String
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(.answer, ["session": .string(session), "id": .string(id), "value": .string(value), "by": "terminal"], output) { _ in
            "answered"
        }
    }
}
