import ArgumentParser

struct FollowUpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "follow-up", abstract: "Queue a message for when the agent would otherwise stop.")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The message.") var text: String
    @Option(name: .customLong("image"), help: "Attach an image file (repeatable).") var images: [String] = []
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(
            .followUp,
            [
                "session": .string(session), "text": .string(text), "origin": "terminal",
                "images": .array(images.map { .string(Home.absolute($0)) }),
            ], output
        ) { $0["status"]?.stringValue ?? "sent" }
    }
}
