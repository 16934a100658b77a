import Logging
import MessengerKit
import PiRelaySDK

/// Discord's part of the hand-over (the kit's `InboxAdapter`): attachments passed on by URL (the
/// attachments plugin fetches them), and the supervisor's answer as a reply to the message, a ⏳
/// on a queued prompt, or a new session's thread.
struct Handoff: InboxAdapter {
    let poster: Poster
    let threads: ThreadOpener
    let logger: Logger

    func params(for message: PendingMessage) async -> ChatMessageParams? {
        let attachments = message.attachments.map { file in
            AttachmentRef(
                url: file.url, filename: file.filename, size: file.size, contentType: file.contentType, voice: file.voice ?? false,
                seconds: file.seconds)
        }
        return ChatMessageParams(chat: message.chat, messageID: message.id, text: message.text, attachments: attachments)
    }

    func failed(_ message: PendingMessage, reason: String) async {
        _ = try? await poster.post(Reply(text: reason), channel: message.chat.postChannel, replyTo: message.id, nonceBase: "error:" + message.id)
    }

    func answered(_ message: PendingMessage, _ result: ChatMessageResult) async {
        let channel = message.chat.postChannel
        // A prompt queued behind a running turn: a ⏳ on it says so, instead of a line of text,
        // unless the reply says more than that (what became of its files, a voice note's words),
        // which was lost with the line.
        if let emoji = result.reaction {
            do {
                try await poster.rest.react(channel: channel, message: message.id, emoji: emoji)
                guard let reply = result.reply, reply.text.split(separator: "\n").count > 1 else { return }
            } catch {
                logger.warning("reacting to message \(message.id): \(error); answering in text")
            }
        }
        guard let reply = result.reply else { return }
        do {
            if !reply.isEmpty {
                try await poster.post(
                    reply, channel: channel, replyTo: message.id, nonceBase: "reply:" + message.id, pace: reply.ephemeral ? .notice : .answer)
            }
        } catch {
            logger.warning("answering message \(message.id): \(error)")
        }
        if let open = reply.openThread {
            await threads.open(open, from: message.chat, nonceBase: "thread:" + message.id)
        }
    }
}
