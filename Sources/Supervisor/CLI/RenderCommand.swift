import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Show, through the formatter plugin, what a chat would show for a recorded pi event stream.",
        discussion:
            "EVENTS.jsonl is pi --mode rpc stdout. Each final message is printed after a line `--- message N ---`; files a message would carry are listed after it."
    )

    @Argument(help: "A recorded pi stdout stream (JSON lines).") var events: String
    @Option(help: "The messenger's message length limit.") var limit: Int = 2000
    @Option(help: "The formatter plugin to use (default: the installed `formatter` plugin).") var formatter: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let home = Home.resolve()
        guard let data = FileManager.default.contents(atPath: Home.absolute(events)) else {
            CLIFailure.exit(RemoteError(code: .notFound, message: "cannot read \(events)"), json: output.json)
        }
        let runs = RecordedStream.runs(in: [UInt8](data), name: URL(fileURLWithPath: events).deletingPathExtension().lastPathComponent)
        let local: LocalFormatter
        do { local = try await LocalFormatter.start(home, path: formatter) } catch { CLIFailure.exit(error, json: output.json) }
        let client = local.client
        var messages: [String] = []
        var files: [JSONValue] = []
        do {
            for run in runs {
                let rendered = try await client.request(.formatFinal, FormatRunParams(run: run.view, limit: limit))
                messages += rendered.messages
                for file in rendered.files {
                    files.append([
                        "afterMessage": JSONValue(messages.count), "filename": .string(file.filename),
                        "bytes": JSONValue(file.text.utf8.count),
                    ])
                }
            }
        } catch {
            await local.stop()
            CLIFailure.exit(error, json: output.json)
        }
        await local.stop()
        let json: JSONValue = ["runs": JSONValue(runs.count), "messages": .array(messages.map { .string($0) }), "files": .array(files)]
        output.emit(json) {
            var out: [String] = []
            for (index, message) in messages.enumerated() {
                out.append("--- message \(index + 1) ---")
                out.append(message)
                for file in files where file["afterMessage"]?.intValue == index + 1 {
                    out.append("--- attachment: \(file["filename"]?.stringValue ?? "file") (\(file["bytes"]?.intValue ?? 0) bytes) ---")
                }
            }
            return out.joined(separator: "\n")
        }
    }
}

/// Replays a recorded pi stream through the same run recorder the daemon uses.
enum RecordedStream {
    static func runs(in bytes: [UInt8], name: String) -> [RunRecord] {
        var recorder = RunRecorder(sessionID: "render", sessionName: name)
        let reader = PiEventReader()
        var framer = LineFramer(maxLineBytes: 64 << 20)
        var runs: [RunRecord] = []
        var settling = false
        let later = ContinuousClock.now + .seconds(3600)
        func take(_ outs: [RunRecorder.Output]) {
            for output in outs {
                if case .finished(let run) = output { runs.append(run) }
                if case .settleAfter = output { settling = true }
            }
        }
        framer.feed(bytes) { event in
            guard case .line(let line) = event, let piEvent = try? reader.read(line) else { return }
            // After agent_end, the next event tells whether the agent goes on (a retry, an
            // overflow compaction, a new agent_start) or the run is over.
            if settling {
                switch piEvent.type {
                case .agentStart, .autoRetryStart, .autoCompactionStart, .autoCompactionEnd, .response, .extensionUIRequest: break
                default:
                    take(recorder.settle(at: later))
                    settling = false
                }
            }
            if piEvent.type == .agentStart { settling = false }
            take(recorder.apply(piEvent, at: .now))
        }
        if settling { take(recorder.settle(at: later)) }
        take(recorder.endOfStream())
        return runs
    }
}
