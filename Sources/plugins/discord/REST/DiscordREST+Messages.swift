import MessengerKit
import PiRelaySDK

extension DiscordREST {
    /// The gateway URL from GET /gateway/bot.
    func gatewayURL() async throws -> String {
        let body = try await send(.gatewayBot)
        guard let url = body?["url"]?.stringValue, !url.isEmpty else {
            throw DiscordAPIError(endpoint: Endpoint.gatewayBot.description, status: 200, code: nil, message: "no url in the answer")
        }
        return url
    }

    /// Posts a message and returns its id. With a nonce the create is idempotent: Discord answers
    /// a repeat (same channel, same nonce, within minutes) with the original message.
    @discardableResult
    func createMessage(channel: String, body: JSONValue, nonce: String?, files: [UploadFile] = [], pace: SendPace = .notice) async throws -> String {
        try await postMessage(channel: channel, body: body, nonce: nonce, files: files, pace: pace).id
    }

    /// Posts a message and returns its id and the content Discord holds for it. A repeated nonce
    /// gets the original message back, which may show an older text than `body`: that is how a
    /// plugin restarted after a crash finds a message it posted but never recorded (and then
    /// edits it, instead of posting a second one).
    func createMessageOrFindRepeat(channel: String, body: JSONValue, nonce: String, pace: SendPace) async throws -> (id: String, content: String) {
        try await postMessage(channel: channel, body: body, nonce: nonce, files: [], pace: pace)
    }

    /// Posts wait in the channel's send queue. Only a live post names a write it replaces (its
    /// run's), and only the run's final takes its place: then it is not sent.
    private func postMessage(
        channel: String, body: JSONValue, nonce: String?, files: [UploadFile], pace: SendPace
    ) async throws -> (
        id: String, content: String
    ) {
        let route = Endpoint.createMessage(channel: channel, enforcedNonce: nonce != nil).routeKey
        let posted = try await paced(ChannelWrites.key("post", channel: channel), route: route, pace) {
            try await postMessageNow(channel: channel, body: body, nonce: nonce, files: files)
        }
        guard let posted else { throw LiveEditSuperseded() }
        return posted
    }

    private func postMessageNow(channel: String, body: JSONValue, nonce: String?, files: [UploadFile]) async throws -> (id: String, content: String) {
        var body = body
        if let nonce {
            body["nonce"] = .string(nonce)
            body["enforce_nonce"] = true
        }
        if !files.isEmpty {
            body["attachments"] = .array(files.enumerated().map { n, file in ["id": .number(Double(n)), "filename": .string(file.filename)] })
        }
        let message = try await send(.createMessage(channel: channel, enforcedNonce: nonce != nil), json: body, files: files)
        guard let id = message?["id"]?.stringValue else {
            throw DiscordAPIError(endpoint: "POST /channels/{channel_id}/messages", status: 200, code: nil, message: "no message id in the answer")
        }
        return (id, message?["content"]?.stringValue ?? "")
    }

    /// An edit waits in the channel's send queue; a newer edit of the same message (`pace`
    /// naming it in `replaces`) takes the place of one still waiting, which is then not sent.
    /// False when it was not sent.
    @discardableResult
    func editMessage(channel: String, message: String, body: JSONValue, pace: SendPace = .notice) async throws -> Bool {
        let route = Endpoint.editMessage(channel: channel, message: message).routeKey
        return try await paced(ChannelWrites.key("edit", channel: channel), route: route, pace) {
            try await send(.editMessage(channel: channel, message: message), json: body)
        } != nil
    }

    /// A live post naming `post`, and live edits of `edits`, still waiting for their place are
    /// not sent (a final replaces them).
    func dropWaitingWrites(channel: String, post: String, edits: [String]) async {
        await queue.supersede(chat: ChannelWrites.key("post", channel: channel), replaces: post)
        for message in edits { await queue.supersede(chat: ChannelWrites.key("edit", channel: channel), replaces: message) }
    }

    func deleteMessage(channel: String, message: String) async throws {
        try await send(.deleteMessage(channel: channel, message: message))
    }

    /// Adds (or with `remove`, takes off) the bot's reaction `emoji` on a message.
    func react(channel: String, message: String, emoji: String, remove: Bool = false) async throws {
        try await send(.ownReaction(remove ? "DELETE" : "PUT", channel: channel, message: message, emoji: emoji))
    }

    func triggerTyping(channel: String) async throws {
        try await send(.typing(channel: channel))
    }

    /// A public thread in `channel`; returns the thread's id.
    func createThread(channel: String, name: String) async throws -> String {
        let body: JSONValue = [
            "name": .string(TextFit.clamp(name.isEmpty ? "session" : name, to: 100)),
            "type": 11, "auto_archive_duration": 10080,
        ]
        guard let id = try await send(.createThread(channel: channel), json: body)?["id"]?.stringValue else {
            throw DiscordAPIError(endpoint: "POST /channels/{channel_id}/threads", status: 201, code: nil, message: "no thread id in the answer")
        }
        return id
    }

    func interactionCallback(id: String, token: String, body: JSONValue) async throws {
        do {
            try await send(.interactionCallback(interaction: id, token: token), json: body)
        } catch let error as DiscordAPIError where error.code == 40060 {
            // Only a retry of ours whose first attempt did land can get here: it is acknowledged.
        }
    }

    func editOriginal(application: String, token: String, body: JSONValue) async throws {
        try await send(.editOriginal(application: application, token: token), json: body)
    }

    func followUp(application: String, token: String, body: JSONValue) async throws {
        try await send(.followUp(application: application, token: token), json: body)
    }

    func deleteOriginal(application: String, token: String) async throws {
        try await send(.deleteOriginal(application: application, token: token))
    }
}
