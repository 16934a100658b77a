import ArgumentParser

struct SteerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steer", abstract: "Steer the running turn (delivered after the current tool calls).")
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The message.") var text: String
    @Option(name: .customLong("image"), help: "Attach an image file (repeatable).") var images: [String] = []
    @OptionGroup var output: OutputOptions

    func run() {
        SessionCall.run(
            .steer,
            [
                "session": .string(session), "text": .string(text), "origin": "terminal",
                "images": .array(images.map { .string(Home.absolute($0)) }),
            ], output
        ) { $0["status"]?.stringValue ?? "sent" }
    }
}
