import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

/// A message typed in the terminal for a session (`steer`, `follow-up`): the session, the text
/// and its images, sent with the terminal as its origin.
struct TerminalMessage: ParsableArguments {
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The message.") var text: String
    @Option(name: .customLong("image"), help: "Attach an image file (repeatable).") var images: [String] = []

    var params: JSONValue {
        [
            "session": .string(session), "text": .string(text), "origin": "terminal",
            "images": .array(images.map { .string(Home.absolute($0)) }),
        ]
    }

    /// Sends it as `kind` and prints what became of it.
    func send(_ kind: PromptKind, _ output: OutputOptions) {
        SessionCall.run(kind.method, params, output) { (try? PromptOutcome(json: $0))?.status.rawValue ?? "sent" }
    }
}
