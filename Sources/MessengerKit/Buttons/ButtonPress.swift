import PiRelaySDK

/// What a pressed button asks of the supervisor, as the user who pressed it: a reply's action
/// (`chat.command` `action`), or an answer to a question (`chat.answer`).
public enum ButtonPress: Sendable {
    case action(id: String)
    case answer(ChatAnswerParams)

    /// Asks the supervisor and returns its reply.
    public func request(from chat: Chat, over connection: PluginConnection) async throws -> Reply {
        switch self {
        case .action(let id): try await connection.request(.chatCommand, ChatCommandParams(chat: chat, name: "action", args: ["id": id]))
        case .answer(let params): try await connection.request(.chatAnswer, params)
        }
    }

    /// Asks the supervisor; its reply, or what went wrong as a reply for whoever pressed.
    public func send(from chat: Chat, over connection: PluginConnection) async -> Reply {
        do { return try await request(from: chat, over: connection) } catch { return Reply(failed: error) }
    }
}
