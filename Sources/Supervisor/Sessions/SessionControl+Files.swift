import PiRelaySDK

extension SessionControl {
    /// The images tools made in the last run, or `send: N` to post one to the session's chats.
    package func images(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        let list = await session.images
        if let number = params["send"]?.intValue {
            let targets = try await watchingChats(session)
            return ["sent": .string(try await delivery.sendImage(session, number: number, to: targets))]
        }
        return .array(
            list.enumerated().map { index, image in
                var entry = image.json
                entry["number"] = JSONValue(index + 1)
                entry["path"] = .string(image.path)
                return entry
            })
    }

    /// A workspace file, checked by the attachments plugin, posted to the session's chats.
    package func file(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        guard let path = params["path"]?.stringValue else { throw RemoteError.invalidParams("file needs a path") }
        let targets = try await watchingChats(session)
        let name = try await delivery.sendFile(session, path: path, to: targets)
        return ["sent": .string(name), "chats": JSONValue(targets.count)]
    }

    private func watchingChats(_ session: PiSession) async throws -> [Binding] {
        let targets = await bindings.chats(of: session.id)
        guard !targets.isEmpty else {
            throw RemoteError(code: .notFound, message: "no chat watches session \(await session.name); /use it from a chat first")
        }
        return targets
    }
}
