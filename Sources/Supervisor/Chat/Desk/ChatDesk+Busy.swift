import PiRelaySDK

/// Prompts in shared channels and prompts that queue behind a running turn.
extension ChatDesk {
    /// `chat.senderPrefix` with the sender's name, for prompts from a shared channel (a DM has
    /// one writer, whom pi need not be told about).
    package func senderPrefix(for chat: Chat) -> String {
        guard let prefix = settings.chat.senderPrefix, !chat.dm else { return "" }
        return prefix.replacing("{name}", with: chat.userName ?? chat.user)
    }

    /// A prompt to a busy session will likely queue: it is noted before it is sent, so pi taking
    /// it straight away is seen. Returns the message id noted, if any.
    package func expectQueued(_ prompt: String, chat: Chat, messageID: String?, session: PiSession) async -> String? {
        // A `/command` cannot be told by its text when pi takes it (`PromptSender.isSlash`): no ⏳
        // that would stay for good.
        guard let messageID, !messageID.isEmpty, !PromptSender.isSlash(prompt), await session.promptWouldQueue else { return nil }
        var queued = QueuedPrompt(text: prompt, messenger: chat.messenger, target: chat.target, messageID: messageID)
        queued.spawned = session.terminal == nil
        await delivery.expectQueued(queued, in: session.id)
        return messageID
    }

    /// A `/command` sent while the session works: pi runs an extension's at once and expands a
    /// template or skill into a follow-up (pi-rpc spec §2); which one it was is pi's to know.
    static func slashWhileBusy(_ name: String) -> String {
        "Sent to \(name) while it works: an extension's /command runs now, a template or skill after this run."
    }

    /// The answer to a prompt: a prompt that queued behind a running turn gets one short line
    /// (or, where the messenger can react, a `⏳` that comes off when pi takes it).
    package func busyAcknowledgement(
        status: ChatMessageResult.Status, notes: [String], pending: String?, session: PiSession, slash: Bool = false
    ) async
        -> ChatMessageResult
    {
        let queued = status == .queued || status == .steered
        let waiting = if let pending { await delivery.settleQueued(messageID: pending, in: session.id, queued: queued) } else { false }
        var lines = notes
        if queued {
            let name = await session.name
            let line =
                slash ? Self.slashWhileBusy(name) : status == .queued ? "Queued as follow-up for \(name)." : "Sent to \(name) as steering."
            lines.insert(line, at: 0)
        }
        return ChatMessageResult(
            status: status, reply: lines.isEmpty ? nil : Reply(lines.joined(separator: "\n"), ephemeral: true),
            reaction: waiting ? ChatDelivery.queuedMark : nil)
    }
}
