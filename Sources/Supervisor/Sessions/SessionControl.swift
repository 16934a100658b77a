import Foundation
import PiRelaySDK

/// The session methods of the control socket; each is also a `pi-relayd` subcommand.
struct SessionControl {
    let sessions: Sessions
    let relay: Relay
    let busyBehavior: String

    static let methods: Set<String> = [
        "sessions", "new", "send", "steer", "follow-up", "abort", "compact", "stream", "history", "questions",
        "answer", "cancel", "rename", "end", "model", "thinking", "state", "stats", "last", "new-conversation", "file",
        "images",
    ]

    func handle(method: String, params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        switch method {
        case "sessions":
            return .array(await sessions.list())
        case "new":
            guard let cwd = params["cwd"]?.stringValue else { throw RemoteError.invalidParams("new needs --cwd DIR") }
            let s = try await sessions.create(cwd: cwd, name: params["name"]?.stringValue)
            return await s.summary()
        case "stream":
            let s = try await session(params)
            let (key, events) = await s.watch()
            stream.send(["type": "watching", "session": .string(await s.name)])
            // Stop when the client goes away or the session ends.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await e in events {
                        if stream.isClosed { break }
                        stream.send(e)
                    }
                }
                group.addTask { await stream.waitUntilClosed() }
                await group.next()
                // The client left, or the session ended and so did its events. In the second
                // case the other task waits for the client (it ignores cancellation): close.
                stream.close()
                group.cancelAll()
            }
            await s.unwatch(key)
            return nil
        case "questions":
            if params["session"]?.stringValue == nil {
                var all: [JSONValue] = []
                for s in await sessions.all { all += await s.openQuestions.map(\.json) }
                return .array(all)
            }
            return .array(try await session(params).openQuestions.map(\.json))
        default:
            break
        }
        let s = try await session(params)
        let who = params["by"]?.stringValue ?? "terminal"
        switch method {
        case "send", "steer", "follow-up":
            guard let text = params["text"]?.stringValue, !text.isEmpty else { throw RemoteError.invalidParams("\(method) needs a text") }
            var images: [JSONValue] = []
            for p in params["images"]?.arrayValue ?? [] {
                if let path = p.stringValue { images.append(try ImageFile.content(path: path)) }
                else { images.append(p) }
            }
            var message = text
            var notes: [String] = []
            // `--attach` goes through the attachments plugin exactly as a chat attachment does.
            let attach = (params["attach"]?.arrayValue ?? []).compactMap(\.stringValue).map { item -> JSONValue in
                let name = URL(fileURLWithPath: item).lastPathComponent
                return item.contains("://") ? ["url": .string(item), "filename": .string(name)]
                                            : ["path": .string(item), "filename": .string(name)]
            }
            if !attach.isEmpty {
                let (appendix, more, n) = await relay.inbound(attach, session: s)
                message += appendix
                images += more
                notes = n
            }
            let names = attach.compactMap { $0["filename"]?.stringValue }
            var r = try await relay.prompt(s, kind: method, text: message, images: images, origin: params["origin"]?.stringValue ?? "terminal",
                                           echo: Relay.echo(text, attachments: names))
            if !notes.isEmpty { r["notes"] = .array(notes.map { .string($0) }) }
            return r
        case "abort":
            _ = try await running(s).command("abort", [:], timeout: .seconds(60))
            return ["aborted": true]
        case "compact":
            var f: JSONValue = [:]
            if let i = params["instructions"]?.stringValue { f["customInstructions"] = .string(i) }
            let r = try await running(s).command("compact", f, timeout: .seconds(600))
            return (try? r.data?.parse()) ?? ["compacted": true]
        case "new-conversation":
            let r = try await running(s).command("new_session", [:], timeout: .seconds(120))
            try await s.refreshState()
            return (try? r.data?.parse()) ?? [:]
        case "model":
            guard let spec = params["model"]?.stringValue, let slash = spec.firstIndex(of: "/") else {
                throw RemoteError.invalidParams("model needs PROVIDER/MODEL, e.g. anthropic/claude-sonnet-4-5")
            }
            let provider = String(spec[..<slash]), modelId = String(spec[spec.index(after: slash)...])
            let r = try await running(s).command("set_model", ["provider": .string(provider), "modelId": .string(modelId)])
            await s.noteModel(spec)
            return (try? r.data?.parse()) ?? ["model": .string(spec)]
        case "thinking":
            guard let level = params["level"]?.stringValue else { throw RemoteError.invalidParams("thinking needs a level") }
            _ = try await running(s).command("set_thinking_level", ["level": .string(level)])
            try await s.refreshState()
            // pi clamps the level to what the model supports: say what it chose.
            return ["thinkingLevel": .string(await s.thinkingLevel ?? level)]
        case "state":
            let r = try await running(s).command("get_state", [:])
            return (try? r.data?.parse()) ?? [:]
        case "stats":
            let r = try await running(s).command("get_session_stats", [:])
            return (try? r.data?.parse()) ?? [:]
        case "last":
            let r = try await running(s).command("get_last_assistant_text", [:])
            // pi omits `text` when there is none.
            let text = (try? r.data?.parse())?["text"]?.stringValue
            return ["text": JSONValue(text)]
        case "history":
            let types = params["types"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
            var since: Date?
            if let text = params["since"]?.stringValue {
                // An unreadable time must not quietly mean "everything".
                guard let date = Self.parseSince(text) else {
                    throw RemoteError.invalidParams("--since takes an ISO time or a duration ago such as 30s, 5m or 2h, not \(text)")
                }
                since = date
            }
            let limit = params["limit"]?.intValue ?? 200
            return .array(await s.historyEntries(types: types?.isEmpty == true ? nil : types, since: since, limit: limit))
        case "answer":
            guard let qid = params["id"]?.stringValue, let value = params["value"]?.stringValue else {
                throw RemoteError.invalidParams("answer needs a question id and a value")
            }
            let q = try await s.answer(try await questionID(s, qid), value: value, by: who)
            return ["answered": .string(q.id)]
        case "cancel":
            guard let qid = params["id"]?.stringValue else { throw RemoteError.invalidParams("cancel needs a question id") }
            let q = try await s.cancel(try await questionID(s, qid), by: who)
            return ["cancelled": .string(q.id)]
        case "rename":
            guard let name = params["name"]?.stringValue else { throw RemoteError.invalidParams("rename needs a name") }
            try await sessions.rename(s, to: name)
            return await s.summary()
        case "images":
            let list = await s.images
            if let n = params["send"]?.intValue {
                let targets = await relay.chats(of: s.id)
                guard !targets.isEmpty else {
                    throw RemoteError(code: "not_found", message: "no chat watches session \(await s.name); /use it from a chat first")
                }
                return ["sent": .string(try await relay.sendImage(s, number: n, to: targets))]
            }
            return .array(list.enumerated().map { i, img in
                var o = img.json
                o["number"] = JSONValue(i + 1)
                o["path"] = .string(img.path)
                return o
            })
        case "file":
            guard let path = params["path"]?.stringValue else { throw RemoteError.invalidParams("file needs a path") }
            let targets = await relay.chats(of: s.id)
            guard !targets.isEmpty else {
                throw RemoteError(code: "not_found", message: "no chat watches session \(await s.name); /use it from a chat first")
            }
            let name = try await relay.sendFile(s, path: path, to: targets)
            return ["sent": .string(name), "chats": JSONValue(targets.count)]
        case "end":
            await sessions.end(s)
            return ["ended": .string(s.id)]
        default:
            throw RemoteError.methodNotFound(method)
        }
    }

    private func session(_ params: JSONValue) async throws -> PiSession {
        guard let key = params["session"]?.stringValue else { throw RemoteError.invalidParams("name a session (id, name or unique prefix)") }
        return try await sessions.resolve(key)
    }

    /// Commands need the child; a session whose pi died is restarted on its session file.
    private func running(_ s: PiSession) async throws -> PiSession {
        try await s.ensureRunning()
        return s
    }

    /// A question can be named by a unique prefix of its id, or by its number in `questions`.
    private func questionID(_ s: PiSession, _ key: String) async throws -> String {
        let open = await s.openQuestions
        if let n = Int(key), n >= 1, n <= open.count, !open.contains(where: { $0.id == key }) { return open[n - 1].id }
        let matches = open.filter { $0.id.hasPrefix(key) }
        if matches.count == 1 { return matches[0].id }
        if open.contains(where: { $0.id == key }) { return key }
        throw RemoteError(code: "not_found", message: "no open question \(key) (already answered or expired?)")
    }

    /// `since` is an ISO time or a duration back from now: 30s, 5m, 2h.
    static func parseSince(_ s: String) -> Date? {
        if let d = ISO8601.date(s) { return d }
        guard let unit = s.last, let n = Double(s.dropLast()) else { return nil }
        switch unit {
        case "s": return Date().addingTimeInterval(-n)
        case "m": return Date().addingTimeInterval(-n * 60)
        case "h": return Date().addingTimeInterval(-n * 3600)
        default: return nil
        }
    }
}
