import PiRelaySDK

/// The agent tools the extension registers in pi (docs/EXTENSION.md, "Agent tools"): the agent
/// reaches the chats that watch its session.
extension SessionControl {
    /// `relay-notify`: a short progress line to every chat watching the session, mid-run.
    func relayNotify(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard let text = params["text"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw RemoteError.invalidParams("relay_notify needs a text")
        }
        let targets = try await agentChats(session)
        let line = text.count > 1000 ? String(text.prefix(1000)) + "…" : text
        await delivery.session(session.id, did: .notice(kind: "info", text: "📣 \(await session.name): \(line)"))
        return ["posted": JSONValue(targets.count)]
    }

    /// `relay-file`: a workspace file to the chat whose prompt is running (every watching chat
    /// when the prompt came from elsewhere), through the attachments plugin's path guard, as `/file`.
    func relayFile(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard let path = params["path"]?.stringValue, !path.isEmpty else { throw RemoteError.invalidParams("relay_send_file needs a path") }
        let chats = try await agentChats(session)
        let origin = await session.promptOrigin
        let targets = chats.contains { $0.key == origin } ? chats.filter { $0.key == origin } : chats
        let name = try await delivery.sendFile(session, path: path, to: targets, caption: params["caption"]?.stringValue)
        return ["sent": .string(name), "chats": JSONValue(targets.count)]
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
