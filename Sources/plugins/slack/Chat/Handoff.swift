import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// Slack's part of the hand-over (the kit's `InboxAdapter`): the writer's display name, the
/// message's files downloaded with the bot token, the supervisor's answer shown, and the status
/// reaction on a message that became a prompt.
struct Handoff: InboxAdapter {
    let api: WebAPI
    let names: UserNames
    let replies: Replies
    let progress: Progress
    let botDMs: BotDMs
    let spoolDir: String
    let logger: Logger

    /// Where the message's answers go (`BotDMs`).
    private func chat(of message: PendingMessage) async -> (chat: Chat, moved: Bool) {
        await botDMs.answerable(message.chat, command: message.id.hasPrefix("cmd:"))
    }

    func params(for message: PendingMessage) async -> ChatMessageParams? {
        var (chat, moved) = await chat(of: message)
        if moved { await replies.show(Reply(text: BotDMs.movedNote), to: chat) }
        if chat.userName == nil { chat.userName = await names.name(of: chat.user) }
        let files = await InboundFiles.fetch(message.files) { await download($0, message: message) }
        return ChatMessageParams(chat: chat, messageID: message.id, text: files.prompt(message.text), attachments: files.attachments)
    }

    func failed(_ message: PendingMessage, reason: String) async {
        await replies.show(Reply(text: reason, ephemeral: true), to: await chat(of: message).chat)
    }

    func answered(_ message: PendingMessage, _ result: ChatMessageResult) async {
        let chat = await chat(of: message).chat
        if let ts = message.ts, [.prompted, .queued, .steered].contains(result.status) {
            await progress.started(ts, in: Place(channel: chat.channel, thread: chat.thread))
        }
        guard let reply = result.reply else { return }
        await replies.show(reply, to: chat)
    }

    /// A file into the spool folder with the bot token; the supervisor and the attachments
    /// plugin get a path, never the URL or the token.
    private func download(_ file: SlackEvent.File, message: PendingMessage) async -> InboundFiles.Fetched {
        if let over = InboundFiles.oversized(file.name, size: file.size, why: { "it is \($0) MB, over the relay's 20 MB" }) { return over }
        let destination = InboundFiles.spoolPath(spoolDir, messenger: "slack", message: message.id, file: "\(file.id)-\(file.name)")
        do {
            try await api.download(file.url, to: destination, maxBytes: InboundFiles.maxDownloadBytes)
            return .attached(
                AttachmentRef(
                    path: destination, filename: file.name, size: file.size, contentType: file.mimetype, voice: file.voice ?? false,
                    seconds: file.seconds))
        } catch {
            return .failed(file.name, "\(error)", logger: logger)
        }
    }
}
