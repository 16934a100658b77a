import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Carries out the supervisor's acknowledged deliveries (`chat.post`, `chat.question.closed`).
/// Returning means Telegram took everything, and only then does the SDK ack. Each message sent is
/// recorded, so a delivery repeated after a crash sends only what had not gone out. A delivery
/// that can never succeed (a chat that blocked the bot, a chat that does not exist) is logged and
/// dropped, or it would come back after every restart; a transient failure throws and it stays
/// queued.
struct Deliveries: Sendable {
    let poster: Poster
    let live: LiveMessages
    let typing: Typing
    let keyboard: Keyboard
    let questions: QuestionMessages
    let blocked: BlockedChats
    let parts: DeliveryParts
    let migrations: Migrations
    let connection: PluginConnection
    let logger: Logger

    func post(delivery: String, _ params: ChatPostParams) async throws {
        guard let place = Place(params.target) else { throw RemoteError.invalidParams("chat.post needs target.channel (a Telegram chat id)") }
        guard !(await blocked.isBlocked(place.chatID)) else {
            logger.info("chat.post \(params.kind.rawValue) to \(place.chatID) dropped: the chat blocked the bot")
            params.files.discard()
            return
        }
        // A move the group's service message told us of is bound before anything shows in the
        // new chat: someone who sees the answer there and writes at once must reach the session.
        // A move found only by this post's refusal is bound after it, below.
        if let session = params.sessionID, let user = await migrations.rebind(place.chatID) {
            await rebind(place, session: session, by: user)
        }
        do {
            switch params.kind {
            case .final: try await final(delivery, place, params)
            case .question: try await question(delivery, place, params)
            case .notice:
                // Rendered for the HTML dialect by the formatter (docs/PROTOCOL.md, "Markup").
                try await parts.once(delivery + ":0") {
                    try await poster.send(params.text ?? "", to: place, keyboard: await keyboard.buttons(params.actions))
                }
            default:
                var text = params.text ?? ""
                if params.kind == .echo { text = "▶ " + text }
                try await parts.send(text.isEmpty ? [] : TelegramText.htmlChunks(text), of: delivery) { index, chunk in
                    try await poster.send(chunk, to: place, keyboard: index == 0 ? await keyboard.buttons(params.actions) : nil)
                }
            }
            try await upload(params.files, delivery: delivery, to: place)
        } catch let error as BotAPIError where error.isPermanent {
            logger.error("chat.post \(params.kind.rawValue) to \(place.key) dropped: \(error)")
            params.files.discard()
        }
        if let session = params.sessionID, let user = await migrations.rebind(place.chatID) {
            await rebind(place, session: session, by: user)
        }
    }

    /// The group moved to a new id: the supervisor binds the new one to the same session, so
    /// its members' messages (which now come from the new id) still reach it, and lets go of
    /// the old one (which would only send everything twice).
    private func rebind(_ place: Place, session: String, by user: String) async {
        let moved = await migrations.current(place.chatID)
        logger.notice("chat \(place.chatID) became supergroup \(moved); binding it to session \(session)")
        let chat = Chat(messenger: "telegram", channel: moved, thread: place.topicID.map { "\(moved)/\($0)" }, user: user, dm: false)
        do {
            _ = try await connection.request(.chatBind, ChatBindParams(chat: chat, sessionID: session))
            var old = chat
            old.channel = place.chatID
            old.thread = place.thread
            _ = try await connection.request(.chatCommand, ChatCommandParams(chat: old, name: "disconnect"))
        } catch {
            logger.warning("binding supergroup \(moved) to session \(session): \(error)")
        }
    }

    /// The closing edit is noted, and made beside the lane (`showClosings`); a question never
    /// posted here gets the outcome as a message of its own. One Telegram will never take (a
    /// topic deleted since) is logged and dropped, as a post's is: retried, it held up the
    /// chat's answers, and came back at every start.
    func questionClosed(_ params: QuestionClosedParams) async throws {
        let key = QuestionMessages.key(session: params.sessionID, question: params.questionID)
        guard !(try await questions.close(key, text: params.text)), let place = Place(params.target), !(await blocked.isBlocked(place.chatID))
        else { return }
        do {
            try await parts.once("closed:" + key) { try await poster.send(Self.closing(params.text), to: place) }
        } catch let error as BotAPIError where error.isPermanent {
            logger.error("chat.question.closed to \(place.chatID) dropped: \(error)")
        }
    }

    /// Closed questions' cards say what came of them, and lose their buttons, as each chat's
    /// budget allows after its questions and finals, until cancelled.
    func showClosings() async {
        await questions.showClosings(logger: logger, givesUp: { ($0 as? BotAPIError)?.isPermanent == true }) { [poster] card, text in
            try await poster.edit(
                card.messageID, in: Place(chatID: card.chatID, topicID: card.topicID), to: Self.closing(card.title + "\n\n" + text), pace: .live)
        }
    }

    /// A closing's text, within one message: it holds the whole answer (an editor's reply may be
    /// as long as a message), and over Telegram's 4,096 the edit is refused for good (§15), and
    /// the card would keep its buttons.
    static func closing(_ plain: String) -> String {
        TelegramText.htmlChunks(plain)[0]
    }

    /// The answer (the kit's `FinalAnswer`), with its files after it (a long answer's `.md`).
    /// An edit notifies nobody (`editMessageText` has no notification, and the live view's
    /// messages went quietly), so an answer that all went into the live view's messages is
    /// followed, when someone is to be pinged (`mentionUser`: a long run, with `/mentions on`),
    /// by a line that notifies them.
    private func final(_ delivery: String, _ place: Place, _ params: ChatPostParams) async throws {
        await typing.stop(place)
        var chunks = (params.chunks ?? []).filter { !$0.trimmed().isEmpty }
        if chunks.isEmpty { chunks = TelegramText.htmlChunks(params.text ?? "(no text)") }
        let outcome = try await FinalAnswer(writer: poster, live: live, parts: parts).post(delivery, runID: params.runID, chunks: chunks, in: place)
        guard outcome.posted == 0, let user = params.mentionUser, let id = Int(user) else { return }
        try await parts.once(delivery + ":done") {
            try await poster.send("<a href=\"tg://user?id=\(id)\">⬆ Done</a>", to: place, pace: .answer)
        }
    }

    private func question(_ delivery: String, _ place: Place, _ params: ChatPostParams) async throws {
        guard let question = params.question else { throw RemoteError.invalidParams("a question post needs question") }
        try await parts.once(delivery + ":0") {
            let buttons = await keyboard.question(question)
            let id = try await poster.send(Self.card(question), to: place, keyboard: buttons, pace: .answer)
            await questions.add(
                QuestionMessages.key(session: question.sessionID, question: question.id),
                .init(chatID: place.chatID, topicID: place.topicID, messageID: id, title: String(question.title.prefix(1000))))
        }
    }

    /// A question's card, as HTML: its words and how to answer, cut to 3,500 code points (an
    /// extension may ask at any length; Telegram refuses a text over 4,096, and the agent would
    /// wait for an answer to a question nobody saw).
    static func card(_ question: QuestionPost) -> String {
        var text = question.title + (question.message.map { "\n\n" + $0 } ?? "")
        switch question.method {
        case "input", "editor": text += "\n\nReply with your answer" + (question.placeholder.map { " (\($0))" } ?? "") + "."
        case "select": text += "\n\nPick one, or reply with its number."
        default: break
        }
        return TelegramText.html(String(String.UnicodeScalarView(text.unicodeScalars.prefix(3500))))
    }

    private func upload(_ files: [PostedFile], delivery: String, to place: Place) async throws {
        try await parts.upload(files, of: delivery) { file in
            try await poster.upload(path: file.path, filename: file.filename, caption: nil, to: place, pace: .answer)
        }
    }
}
