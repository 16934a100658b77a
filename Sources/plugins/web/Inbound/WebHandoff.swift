import MessengerKit
import PiRelaySDK

/// The inbox's adapter: a prompt from a page becomes `chat.message`, and what pi-relayd answers is
/// shown on that page.
struct WebHandoff: InboxAdapter {
    let board: Board

    func params(for message: WebMessage) async -> ChatMessageParams? {
        ChatMessageParams(
            chat: WebPlace.chat(session: message.session, user: message.user), messageID: message.id, text: message.text,
            attachments: message.images.map(\.attachment))
    }

    func failed(_ message: WebMessage, reason: String) async {
        await board.add(WebItem.reply(Reply(text: reason), id: "r-" + message.id), id: "r-" + message.id, session: message.session)
    }

    func answered(_ message: WebMessage, _ result: ChatMessageResult) async {
        guard let reply = result.reply, !reply.isEmpty else { return }
        await board.add(WebItem.reply(reply, id: "r-" + message.id), id: "r-" + message.id, session: message.session)
    }
}
