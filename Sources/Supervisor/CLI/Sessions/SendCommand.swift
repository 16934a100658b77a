import ArgumentParser
import PiRelaySDK

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Prompt a session (queued as a follow-up while it is busy).")
    @Argument(help: "Session id, name or unique prefix.") var session: String
    @Argument(help: "The prompt.") var text: String
    @Option(name: .customLong("image"), help: "Attach an image file (repeatable).") var images: [String] = []
    @Option(name: .customLong("attach"), help: "Attach a file or URL through the attachments plugin (repeatable).") var attach: [String] = []
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = [
            "session": .string(session), "text": .string(text), "origin": "terminal",
            "images": .array(images.map { .string(Home.absolute($0)) }),
        ]
        if !attach.isEmpty {
            params["attach"] = .array(attach.map { $0.contains("://") ? .string($0) : .string(Home.absolute($0)) })
        }
        SessionCall.run("send", params, output) { result in
            ([result["status"]?.stringValue ?? "sent"] + (result["notes"]?.arrayValue ?? []).compactMap(\.stringValue)).joined(separator: "\n")
        }
    }
}
