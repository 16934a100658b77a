import Logging
import MessengerKit
import PiRelaySDK

/// Button presses (`callback_query`): the allowlist on the presser (in groups anyone can press),
/// the answer to Telegram at once (the spinner stops, and a late answer is refused), then the
/// supervisor: `chat.command` `action` or `chat.answer`, and its reply in the chat.
struct Presses: Sendable {
    let api: BotAPI
    let tokens: ButtonTokens
    let allowlist: Allowlist
    let connection: PluginConnection
    let handoff: Handoff
    let logger: Logger

    func handle(_ query: JSONValue) async {
        guard let id = query["id"]?.stringValue else { return }
        let user = TelegramMessage.id(query["from"]?["id"]) ?? ""
        let name = query["from"]?["username"]?.stringValue ?? query["from"]?["first_name"]?.stringValue ?? user
        guard allowlist.permits(user) else {
            logger.notice("refused a button press from user \(user) (\(name)): not in the allowlist")
            await answer(id, text: "Not authorized.", alert: true)
            return
        }
        guard let data = query["data"]?.stringValue, let action = await tokens.action(data) else {
            await answer(id, text: "This button no longer works.", alert: false)
            return
        }
        await answer(id, text: nil, alert: false)
        guard let message = query["message"], let chatID = TelegramMessage.id(message["chat"]?["id"]) else { return }
        let topic = message["is_topic_message"]?.boolValue == true ? message["message_thread_id"]?.intValue : nil
        let place = Place(chatID: chatID, topicID: topic)
        let chat = Chat(
            messenger: "telegram", channel: chatID, thread: place.thread, user: user, userName: name,
            dm: message["chat"]?["type"]?.stringValue == "private", mentioned: true)
        let press: ButtonPress
        switch action {
        case .action(let actionID):
            logger.info("button \(actionID) from \(name) in \(place.key)")
            press = .action(id: actionID)
        case .answer(let session, let question, let value, let confirmed, let cancelled):
            logger.info("answer to question \(question) from \(name)")
            var params = ChatAnswerParams(chat: chat, sessionID: session, questionID: question)
            params.value = value
            params.confirmed = confirmed
            params.cancelled = cancelled
            press = .answer(params)
        }
        let reply = await press.send(from: chat, over: connection)
        // The question's card is edited to say who answered what (chat.question.closed): that
        // one edit is the answer's only write in a chat that takes about one a second.
        if reply.questionClosed { return }
        await handoff.show(reply, in: place, from: chat)
    }

    private func answer(_ id: String, text: String?, alert: Bool) async {
        var params: JSONValue = ["callback_query_id": .string(id)]
        if let text { params["text"] = .string(text) }
        if alert { params["show_alert"] = true }
        do { try await api.call("answerCallbackQuery", params, timeout: .seconds(10)) } catch {
            logger.debug("answering button press \(id): \(error)")
        }
    }
}
