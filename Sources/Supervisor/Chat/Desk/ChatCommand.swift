import PiRelaySDK

/// A chat command, the same for every messenger: from a slash command, a button, or plain text.
package enum ChatCommand: Equatable {
    case sessions
    case use(String)
    case new(cwd: String?, name: String?)
    case stop
    case steer(String)
    case followUp(String)
    case compact
    case model(String?)
    /// Show or set how hard the model thinks (`off`, `minimal`, `low`, `medium`, `high`, `xhigh`).
    case thinking(String?)
    /// Give the active session a new name (its name everywhere, unlike `/alias`).
    case rename(String)
    /// A new conversation in the same session: pi forgets the turns so far.
    case reset
    case status
    case end
    /// Remove an offline session (a closed terminal pi, an exited pi) from the list; nil: this chat's.
    case forget(String?)
    /// Recent approval decisions of this chat's session.
    case approvals
    case to(session: String, text: String)
    /// Name the active session for this chat (`/alias NAME`); nil (`/alias clear`) forgets the name.
    case alias(String?)
    case cancel
    case disconnect
    case help
    /// Send a file from the session's workspace to this chat, with a caption.
    case file(String, caption: String?)
    /// Send an image from the session's workspace to this chat (`/send-image PATH`).
    case sendImage(String)
    /// List the images tools produced in the last run, or send one of them.
    case images
    case image(Int)
    /// How much of a run this chat sees: nil shows the mode and the choices.
    case progress(String?)
    /// The last N activity lines of the session (prompts, tools, notices).
    case recent(Int?)
    /// A short account of the last run, from its events.
    case summary
    /// The last answer, whole, in chat-sized messages.
    case full
    /// Stop delivery to this chat without unbinding; `resume` undoes it.
    case pause
    case resume
    /// Whether this chat mentions the requester (blocked agent, long run): `on`, `off`, nil shows it.
    case mentions(String?)
    /// Scheduled prompts of this chat's session: the words after `/schedule` (`every 1h PROMPT`,
    /// `list`, `cancel N`); empty lists them.
    case schedule(String)
    /// A button: `use:<id>`, `disconnect`, `stop:<id>`, `qa:<session>:<question>:<answer>`, `qc:<session>:<question>`,
    /// a guided choice's `ga:<session>:<token>:<label|custom>` and a held reply's `gb:<session>:<token>:<answer|prompt|cancel>`.
    case action(String)

    /// Parses `/name args` text. Returns nil for text that is not a known command, which then
    /// goes to the agent as an ordinary prompt (pi has its own `/skill` style commands).
    package static func parse(_ text: String) -> ChatCommand? {
        guard let command = CommandText(text) else { return nil }
        let rest = command.rest
        switch command.name {
        case "sessions": return .sessions
        case "use": return rest.isEmpty ? .sessions : .use(rest)
        case "new":
            // A folder with spaces is quoted: `/new "~/My Projects/api" api`.
            if let (folder, after) = Self.leadingQuoted(rest) {
                let name = after.trimmingInlineSpace()
                return folder.isEmpty ? nil : .new(cwd: folder, name: name.isEmpty ? nil : name)
            }
            let words = rest.split(separator: " ", maxSplits: 1).map(String.init)
            return .new(cwd: words.first, name: words.count > 1 ? words[1].trimmingInlineSpace() : nil)
        case "stop", "abort": return .stop
        case "steer": return rest.isEmpty ? nil : .steer(rest)
        case "followup", "follow-up", "queue": return rest.isEmpty ? nil : .followUp(rest)
        case "compact": return .compact
        case "model": return .model(rest.isEmpty ? nil : rest)
        case "thinking": return .thinking(rest.isEmpty ? nil : rest)
        case "rename": return rest.isEmpty ? nil : .rename(rest)
        case "reset", "newchat": return .reset
        case "status": return .status
        case "end": return .end
        case "forget": return .forget(rest.isEmpty ? nil : rest)
        case "approvals": return .approvals
        case "to":
            // A label with spaces is quoted: `/to "docs team" run tests`.
            if let (label, after) = Self.leadingQuoted(rest) {
                let text = after.trimmingInlineSpace()
                return label.isEmpty || text.isEmpty ? nil : .to(session: label, text: text)
            }
            let words = rest.split(separator: " ", maxSplits: 1).map(String.init)
            return words.count == 2 ? .to(session: words[0], text: words[1]) : nil
        case "alias": return rest.isEmpty ? nil : .alias(rest.lowercased() == "clear" ? nil : rest)
        case "cancel": return .cancel
        case "disconnect": return .disconnect
        case "help": return .help
        case "file", "send-file", "send_file", "sendfile":
            guard let (path, caption) = Self.pathAndCaption(rest) else { return nil }
            return .file(path, caption: caption)
        case "send-image", "send_image", "sendimage":
            guard let (path, _) = Self.pathAndCaption(rest) else { return nil }
            return .sendImage(path)
        case "images": return .images
        case "image": return Int(rest).map { .image($0) } ?? .images
        case "progress": return .progress(rest.isEmpty ? nil : rest)
        case "recent", "activity": return .recent(rest.isEmpty ? nil : Int(rest) ?? 0)
        case "summary": return .summary
        case "full": return .full
        case "pause": return .pause
        case "resume": return .resume
        case "mentions": return .mentions(rest.isEmpty ? nil : rest)
        case "schedule", "schedules": return .schedule(rest)
        default: return nil
        }
    }

    /// Text in quotes at the start, and what follows. A phone's keyboard writes “curly” quotes
    /// (and „these“ in German) for the straight ones: all are taken.
    static func leadingQuoted(_ rest: String) -> (String, Substring)? {
        let pairs: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("„", "“"), ("«", "»")]
        guard let first = rest.first, let (_, closing) = pairs.first(where: { $0.0 == first }),
            let close = rest.dropFirst().firstIndex(of: closing)
        else { return nil }
        return (String(rest[rest.index(after: rest.startIndex)..<close]), rest[rest.index(after: close)...])
    }

    /// `PATH [CAPTION]`: the path is the first word, or quoted (`"my notes.md" for you`).
    static func pathAndCaption(_ rest: String) -> (String, String?)? {
        var path: Substring, after: Substring
        if let (quoted, rest) = leadingQuoted(rest) {
            path = Substring(quoted)
            after = rest
        } else {
            let space = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            path = rest[..<space]
            after = rest[space...]
        }
        let caption = after.trimmingInlineSpace()
        return path.isEmpty ? nil : (String(path), caption.isEmpty ? nil : caption)
    }

    /// From a messenger's `chat.command` request.
    package static func from(name: String, args: [String: String]) throws -> ChatCommand {
        func arg(_ key: String) -> String? { args[key].flatMap { $0.isEmpty ? nil : $0 } }
        switch name {
        case "sessions": return .sessions
        case "use": return arg("session").map { .use($0) } ?? .sessions
        case "new": return .new(cwd: arg("cwd"), name: arg("name"))
        case "stop": return .stop
        case "steer": guard let text = arg("text") else { throw RemoteError.invalidParams("/steer needs a text") }; return .steer(text)
        case "followup": guard let text = arg("text") else { throw RemoteError.invalidParams("/followup needs a text") }; return .followUp(text)
        case "compact": return .compact
        case "model": return .model(arg("model"))
        case "thinking": return .thinking(arg("level"))
        case "rename": guard let name = arg("name") else { throw RemoteError.invalidParams("/rename needs a name") }; return .rename(name)
        case "reset": return .reset
        case "status": return .status
        case "end": return .end
        case "forget": return .forget(arg("session"))
        case "approvals": return .approvals
        case "to":
            guard let session = arg("session"), let text = arg("text") else { throw RemoteError.invalidParams("/to needs a session and a text") }
            return .to(session: session, text: text)
        case "alias":
            guard let name = arg("name") else { throw RemoteError.invalidParams("/alias needs a name (or clear)") }
            return .alias(name.lowercased() == "clear" ? nil : name)
        case "cancel": return .cancel
        case "disconnect": return .disconnect
        case "help": return .help
        case "file":
            guard let path = arg("path") else { throw RemoteError.invalidParams("/file needs a path") }
            return .file(path, caption: arg("caption"))
        case "send-image", "sendimage":
            guard let path = arg("path") else { throw RemoteError.invalidParams("/send-image needs a path") }
            return .sendImage(path)
        case "images": return arg("number").flatMap(Int.init).map { .image($0) } ?? .images
        case "progress": return .progress(arg("mode"))
        case "recent": return .recent(arg("count").map { Int($0) ?? 0 })
        case "summary": return .summary
        case "full": return .full
        case "pause": return .pause
        case "resume": return .resume
        case "mentions": return .mentions(arg("state"))
        case "schedule": return .schedule(arg("text") ?? "")
        case "action": guard let id = arg("id") else { throw RemoteError.invalidParams("action needs an id") }; return .action(id)
        default: throw RemoteError.methodNotFound("command \(name)")
        }
    }
}
