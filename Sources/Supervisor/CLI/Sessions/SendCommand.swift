import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Prompt a session (queued as a follow-up while it is busy).",
        discussion: """
            With --wait, the run is shown as it happens, rendered by the formatter plugin, until it ends; \
            Ctrl-C stops watching, not the run (`abort` stops it). With --wait --json, the finished run view is printed.
            """)
    @Argument(help: .session, completion: .sessionNames) var session: String
    @Argument(help: "The prompt; - reads it from stdin.") var text: String
    @Option(name: .customLong("image"), help: "Attach an image file (repeatable).") var images: [String] = []
    @Option(name: .customLong("attach"), help: "Attach a file or URL through the attachments plugin (repeatable).") var attach: [String] = []
    @Flag(help: "Show the run until it ends.") var wait = false
    @OptionGroup var output: OutputOptions

    func run() async {
        var params: JSONValue = [
            "session": .string(session), "text": .string(await prompt()), "origin": "terminal",
            "images": .array(images.map { .string(Home.absolute($0)) }),
        ]
        if !attach.isEmpty {
            params["attach"] = .array(attach.map { $0.contains("://") ? .string($0) : .string(Home.absolute($0)) })
        }
        let client = Home.resolve().client
        guard wait else {
            do {
                let result = try await client.request(.send, params)
                output.emit(result) { Self.plain(result) }
            } catch {
                CLIFailure.exit(error, json: output.json)
            }
            return
        }
        await RunWatch(client: client, session: session, json: output.json).prompt(params)
    }

    /// The prompt: the argument, or stdin read to its end for `-` (on a reader thread: the
    /// cooperative pool never waits on a pipe).
    func prompt() async -> String {
        guard text == "-" else { return text }
        guard let read = String(validating: await Self.readAll(STDIN_FILENO), as: UTF8.self) else {
            CLIFailure.exit(RemoteError.invalidParams("the prompt on stdin is not UTF-8"), json: output.json)
        }
        let prompt = read.trimmed()
        if prompt.isEmpty { CLIFailure.exit(RemoteError.invalidParams("the prompt on stdin is empty"), json: output.json) }
        return prompt
    }

    /// Everything `fd` holds until its end, read on a thread of its own.
    static func readAll(_ fd: Int32) async -> [UInt8] {
        await DedicatedThread.run("stdin-reader") {
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                all += buffer[0..<count]
            }
            return all
        }
    }

    static func plain(_ result: JSONValue) -> String {
        guard let outcome = try? PromptOutcome(json: result) else { return "sent" }
        return ([outcome.status.rawValue] + outcome.notes).joined(separator: "\n")
    }
}
