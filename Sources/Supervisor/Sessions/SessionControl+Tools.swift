import FoundationEssentials
import PiRelaySDK

/// The agent tools the extension registers in pi (docs/EXTENSION.md, "Agent tools"): the agent
/// reaches the chats that watch its session.
extension SessionControl {
    /// `relay-notify`: a short progress line to every chat watching the session, mid-run.
    package func relayNotify(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard let text = params["text"]?.stringValue?.trimmed(), !text.isEmpty else {
            throw RemoteError.invalidParams("relay_notify needs a text")
        }
        let targets = try await agentChats(session)
        let line = text.count > 1000 ? String(text.prefix(1000)) + "…" : text
        await delivery.session(session.id, did: .notice(kind: "info", text: "📣 \(await session.name): \(line)"))
        return ["posted": JSONValue(targets.count)]
    }

    /// `relay-file`: a workspace file to the chat whose prompt is running (every watching chat
    /// when the prompt came from elsewhere), through the attachments plugin's path guard, as `/file`.
    package func relayFile(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard let path = params["path"]?.stringValue, !path.isEmpty else { throw RemoteError.invalidParams("relay_send_file needs a path") }
        let chats = try await agentChats(session)
        let origin = await session.promptOrigin
        let targets = chats.contains { $0.key == origin } ? chats.filter { $0.key == origin } : chats
        let name = try await delivery.sendFile(session, path: path, to: targets, caption: params["caption"]?.stringValue)
        return ["sent": .string(name), "chats": JSONValue(targets.count)]
    }

    /// `spawn-session`: a new session in `cwd` (relative to the asking session's), in a thread of
    /// its own opened beside the chat whose prompt is running (the first watching chat when the
    /// prompt came from elsewhere) and bound to it; `prompt`, if given, is its first prompt.
    /// Where no thread can be opened (a DM), that chat gets a button to watch the new session.
    package func spawnSession(_ parent: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard spawnLimit > 0 else {
            throw RemoteError(code: .unavailable, message: "spawning sessions is turned off here (sessions.spawnLimit is 0)")
        }
        guard let requested = params["cwd"]?.stringValue?.trimmingInlineSpace(), !requested.isEmpty else {
            throw RemoteError.invalidParams("spawn_session needs a cwd")
        }
        let chats = try await agentChats(parent)
        let running = await parent.promptOrigin
        let asking = chats.first { $0.key == running } ?? chats[0]
        let parentName = await parent.name
        let cwd = Self.directory(requested, from: parent.cwd)
        let child = try await sessions.create(
            cwd: cwd, name: params["name"]?.stringValue?.trimmingInlineSpace(), spawnedBy: parent.id, spawnLimit: spawnLimit)
        let name = await child.name
        let prompt = params["prompt"]?.stringValue.flatMap { $0.trimmed().isEmpty ? nil : $0 }
        let task = prompt.map { "\nTask: " + ($0.count > 500 ? String($0.prefix(500)) + "…" : $0) } ?? ""
        var result: JSONValue = ["session": .string(child.id), "name": .string(name), "cwd": .string(child.cwd)]
        var origin = "spawn:\(parent.id)"
        do {
            let thread = try await delivery.openThread(for: child.id, named: name, from: asking)
            await delivery.notify(
                thread, sessionID: child.id,
                "🧵 \(name) in \(child.cwd), spawned by \(parentName)'s agent. Messages here are its prompts.\(task)")
            result["thread"] = .string(thread.thread ?? thread.channel)
            origin = thread.key
        } catch {
            // No thread: the asking chat keeps its session and gets a button to switch.
            let reason = (error as? RemoteError)?.message ?? "\(error)"
            await delivery.notify(
                asking, sessionID: parent.id,
                "🧵 \(parentName)'s agent started \(name) in \(child.cwd) (no thread: \(reason)).\(task)",
                actions: [[Reply.Action(id: "use:\(child.id)", label: String("Watch \(name)".prefix(Reply.maxLabelLength)), style: "primary")]])
            result["thread"] = .null
            result["note"] = .string("no thread was opened (\(reason)); the chat was offered a button to watch it")
        }
        if let prompt { _ = try await prompter.prompt(child, kind: .send, text: prompt, images: [], origin: origin) }
        result["prompted"] = .bool(prompt != nil)
        return result
    }

    /// A spawned session's folder: absolute or `~/…` as given, else relative to the parent's.
    package static func directory(_ requested: String, from parentCwd: String) -> String {
        if requested.hasPrefix("/") { return requested.standardizedPath }
        if requested == "~" || requested.hasPrefix("~/") {
            return requested.expandingTilde.standardizedPath
        }
        return (parentCwd + "/" + requested).standardizedPath
    }

    /// The chats an agent tool may reach; none is a clear refusal the agent reads.
    private func agentChats(_ session: PiSession) async throws -> [Binding] {
        let chats = await bindings.chats(of: session.id)
        guard !chats.isEmpty else {
            throw RemoteError(code: .notFound, message: "no chat watches session \(await session.name), so there is nobody to send this to")
        }
        return chats
    }
}
