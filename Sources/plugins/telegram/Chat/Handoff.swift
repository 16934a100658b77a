import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Telegram's part of the hand-over (the kit's `InboxAdapter`): a message's files downloaded
/// through getFile, and the supervisor's answer shown in the chat.
struct Handoff: InboxAdapter {
    let api: BotAPI
    let poster: Poster
    let keyboard: Keyboard
    let topics: Topics
    let spoolDir: String
    let logger: Logger

    func params(for message: PendingMessage) async -> ChatMessageParams? {
        guard Place(message.chat.target) != nil else { return nil }
        // A bare /start is Telegram's first word to a bot: help (with a code it is a pairing claim,
        // taken before the allowlist).
        let text = message.text == "/start" ? "/help" : message.text
        let files = await InboundFiles.fetch(message.files) { await download($0, message: message) }
        return ChatMessageParams(chat: message.chat, messageID: message.id, text: files.prompt(text), attachments: files.attachments)
    }

    func failed(_ message: PendingMessage, reason: String) async {
        guard let place = Place(message.chat.target) else { return }
        _ = try? await poster.send(TelegramText.html(reason), to: place, pace: .answer)
    }

    func answered(_ message: PendingMessage, _ result: ChatMessageResult) async {
        guard let reply = result.reply, let place = Place(message.chat.target) else { return }
        await show(reply, in: place, from: message.chat)
    }

    /// A supervisor reply in the chat, with its buttons; a new session's topic if it asks. A
    /// reply for everyone (a new session, a summary) goes before live views; an acknowledgement
    /// only its asker would see on another messenger ("Queued for …") is a notice.
    func show(_ reply: Reply, in place: Place, from chat: Chat) async {
        if !reply.text.isEmpty || !reply.actions.isEmpty {
            let buttons = await keyboard.buttons(reply.actions)
            let pace: SendPace = reply.ephemeral ? .notice : .answer
            for (index, chunk) in TelegramText.htmlChunks(reply.text.isEmpty ? "…" : reply.text).enumerated() {
                do { try await poster.send(chunk, to: place, keyboard: index == 0 ? buttons : nil, pace: pace) } catch {
                    logger.warning("answering in \(place.key): \(error)")
                }
            }
        }
        if let open = reply.openThread { await topics.open(open, from: chat) }
    }

    /// A file into the spool folder through getFile; the download URL carries the token, so the
    /// supervisor and the attachments plugin get a path, never the URL.
    private func download(_ file: TelegramMessage.File, message: PendingMessage) async -> InboundFiles.Fetched {
        if let over = InboundFiles.oversized(
            file.filename, size: file.size, why: { "Telegram lets bots download files up to 20 MB, and this one is \($0) MB" })
        {
            return over
        }
        do {
            let info = try await api.call("getFile", ["file_id": .string(file.fileID)])
            guard let path = info["file_path"]?.stringValue else {
                return .notIncluded(file.filename, "Telegram gave no download path")
            }
            // Named for the file's own message: an album's files go in one prompt, and two of them
            // may have one name.
            let from = file.messageID.map { "\(message.chat.channel):\($0)" } ?? message.id
            let destination = InboundFiles.spoolPath(spoolDir, messenger: "tg", message: from, file: file.filename)
            try await api.download(filePath: path, to: destination, maxBytes: InboundFiles.maxDownloadBytes)
            return .attached(
                AttachmentRef(
                    path: destination, filename: file.filename, size: file.size, contentType: file.contentType, voice: file.voice ?? false,
                    seconds: file.seconds))
        } catch let error as BotAPIError where error.text.contains("file is too big") {
            return .notIncluded(file.filename, "Telegram lets bots download files up to 20 MB")
        } catch {
            return .failed(file.filename, Topics.short(error), logger: logger)
        }
    }
}
