import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// `send --wait` and `stream --pretty`: a session's runs as they happen, from the control
/// socket's `stream` with `runs`, rendered by the formatter (`RunPrinter`).
struct RunWatch {
    let client: ControlClient
    let session: String
    let json: Bool

    /// Watches the session, then sends the prompt and shows the run until it ends. Exits 0
    /// when it ended, 1 when it failed (pi's error), was refused, or the session ended first.
    func prompt(_ params: JSONValue) async -> Never {
        var formatter: LocalFormatter?
        do {
            // Watching before sending: no event of the run can come before the watch does.
            var (connection, name) = try await watch()
            formatter = json ? nil : try await LocalFormatter.start(Home.resolve())
            let printer = formatter.map { RunPrinter(formatter: $0.client, output: .stdout()) }
            let sent = try await client.request(.send, params)
            for note in (sent["notes"]?.arrayValue ?? []).compactMap(\.stringValue) {
                StandardStreams.writeError((note + "\n"))
            }
            var final: RunView?
            events: while case .event(let event)? = try await connection.next() {
                switch event["type"]?.stringValue {
                case "run":
                    guard let view = try? RunView(json: event["run"] ?? [:]) else { continue }
                    try await printer?.show(view)
                    if view.done {
                        final = view
                        break events
                    }
                case "question":
                    try await printer?.showQuestion(event, session: name)
                case "prompt_rejected":
                    throw RemoteError(code: .other("prompt_rejected"), message: "pi rejected the prompt: \(event["error"]?.stringValue ?? "")")
                default:
                    continue
                }
            }
            await connection.close()
            await formatter?.stop()
            guard let final else { throw RemoteError(code: .notFound, message: "session \(name) ended before its run finished") }
            if json {
                var result = sent
                result["run"] = final.json
                result["text"] = .string(final.text)
                print(result.serialized())
            }
            exit(final.stopReason == "error" ? 1 : 0)
        } catch {
            await formatter?.stop()
            CLIFailure.exit(error, json: json)
        }
    }

    /// Shows every run, question and change of the session until it ends (or Ctrl-C).
    func follow() async -> Never {
        var formatter: LocalFormatter?
        do {
            var (connection, name) = try await watch()
            let local = try await LocalFormatter.start(Home.resolve())
            formatter = local
            let printer = RunPrinter(formatter: local.client, output: .stdout())
            try await printer.showNotice(.info, "watching \(name)")
            while case .event(let event)? = try await connection.next() {
                switch event["type"]?.stringValue {
                case "run":
                    guard let view = try? RunView(json: event["run"] ?? [:]) else { continue }
                    try await printer.show(view)
                case "question":
                    try await printer.showQuestion(event, session: name)
                case let type?:
                    if let (kind, text) = Self.notice(type, event) { try await printer.showNotice(kind, text) }
                case nil:
                    continue
                }
            }
            await connection.close()
            await local.stop()
            exit(0)
        } catch {
            await formatter?.stop()
            CLIFailure.exit(error, json: json)
        }
    }

    /// Opens the stream with run views and waits until the daemon watches: the session's name.
    private func watch() async throws -> (ControlConnection, String) {
        var connection = try client.open(.stream, ["session": .string(session), "runs": true])
        guard case .event(let first)? = try await connection.next(), first["type"]?.stringValue == "watching" else {
            throw RemoteError(code: .internal, message: "pi-relayd did not start watching \(session)")
        }
        return (connection, first["session"]?.stringValue ?? session)
    }

    /// The session events a terminal shows besides runs and questions, as notices.
    static func notice(_ type: String, _ event: JSONValue) -> (NoticeKind, String)? {
        let by = event["by"]?.stringValue.map { " by \($0)" } ?? ""
        switch type {
        case "question_answered": return (.info, "question answered\(by)")
        case "question_cancelled": return (.info, "question cancelled\(by)")
        case "question_expired": return (.info, "question expired")
        case "prompt_rejected": return (.error, "pi rejected the prompt: \(event["error"]?.stringValue ?? "")")
        case "compacted": return (.compaction, "the conversation was compacted")
        case "new_conversation": return (.info, "a new conversation started")
        case "exited": return (.info, "pi exited (\(event["reason"]?.stringValue ?? "no reason given"))")
        case "attached": return (.info, "a terminal pi attached")
        case "detached": return (.info, "the terminal pi detached")
        default: return nil
        }
    }
}
