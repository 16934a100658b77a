import MessengerKit
import PiRelaySDK

/// The inbox's adapter: a prompt from a page becomes `chat.message`, and what pi-relayd answers is
/// shown on that page. A prompt that started a run has the session's tree snapshot taken, the
/// base of "changes made by this run".
struct WebHandoff: InboxAdapter {
    let board: Board
    let changes: SessionChanges
    let directory: SessionDirectory

    func params(for message: WebMessage) async -> ChatMessageParams? {
        ChatMessageParams(
            chat: WebPlace.chat(session: message.session, user: message.user), messageID: message.id, text: message.text,
            attachments: message.images.map(\.attachment))
    }

    func failed(_ message: WebMessage, reason: String) async {
        await board.add(WebItem.reply(Reply(text: reason), id: "r-" + message.id), id: "r-" + message.id, session: message.session)
    }

    func answered(_ message: WebMessage, _ result: ChatMessageResult) async {
        if result.status == .prompted {
            // Taken once pi has the prompt, not before: git started beside the hand-over held
            // the prompt up on a small machine, and pi needs a model's answer before any tool
            // can change the tree. Unstructured on purpose: the page's lane waits neither for
            // git nor for the control socket, asked when no page has read the sessions list.
            Task { [changes, directory] in await changes.runStarts(message.session, cwd: await directory.cwd(message.session)) }
        }
        guard let reply = result.reply, !reply.isEmpty else { return }
        await board.add(WebItem.reply(reply, id: "r-" + message.id), id: "r-" + message.id, session: message.session)
    }
}
