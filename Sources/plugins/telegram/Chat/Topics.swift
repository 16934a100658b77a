import Logging
import PiRelaySDK

/// Forum topics, Telegram's threads: `/new` in a forum supergroup opens one bound to the new
/// session (a Reply's `openThread`), and so does an agent's `spawn_session` (`chat.thread`).
/// Elsewhere `/new` binds the chat it was typed in, as the protocol's fallback says.
struct Topics: Sendable {
    let api: BotAPI
    let poster: Poster
    let connection: PluginConnection
    let forums: ForumChats
    let logger: Logger

    /// `openThread`: a topic in a forum, else this chat; then `chat.bind` and its reply there.
    func open(_ open: Reply.OpenThread, from chat: Chat) async {
        var place = chat
        if await forums.isForum(chat.channel) {
            do {
                let topic = try await create(in: chat.channel, name: open.name)
                place.thread = topic.thread
                logger.info("opened topic \(topic.key) for session \(open.sessionID)")
            } catch {
                logger.warning("could not open a topic for session \(open.sessionID): \(error)")
                _ = try? await poster.send(
                    TelegramText.html("⚠️ Could not open a topic here (\(Self.short(error))). Binding this chat instead."),
                    to: Place(chatID: chat.channel, topicID: nil))
            }
        }
        do {
            let reply = try await connection.request(.chatBind, ChatBindParams(chat: place, sessionID: open.sessionID))
            if !reply.text.isEmpty, let target = Place(place.target) {
                try await poster.send(TelegramText.html(reply.text), to: target)
            }
        } catch {
            logger.warning("chat.bind for session \(open.sessionID) failed: \(error)")
        }
    }

    /// `chat.thread`: a topic in the target's chat, when it is a forum.
    func open(_ request: ChatThreadParams) async throws -> Target {
        guard await forums.isForum(request.target.channel) else {
            throw RemoteError(code: .unavailable, message: "this Telegram chat has no topics (only forum supergroups do)")
        }
        do {
            return try await create(in: request.target.channel, name: request.name).target
        } catch {
            throw RemoteError(code: .unavailable, message: "Telegram did not open a topic (\(Self.short(error)))")
        }
    }

    private func create(in chat: String, name: String) async throws -> Place {
        let title = String(String.UnicodeScalarView((name.isEmpty ? "session" : name).unicodeScalars.prefix(128)))
        let result = try await api.call("createForumTopic", ["chat_id": .string(chat), "name": .string(title)], chat: chat)
        guard let topic = result["message_thread_id"]?.intValue else {
            throw BotAPIError(method: "createForumTopic", status: 200, text: "no message_thread_id in the answer")
        }
        return Place(chatID: chat, topicID: topic)
    }

    static func short(_ error: any Error) -> String {
        if let api = error as? BotAPIError { return api.text }
        if let remote = error as? RemoteError { return remote.code.rawValue }
        return "error"
    }
}
