import FoundationEssentials
import PiRelaySDK

/// What each chat is sent as its preferences say (`/progress`, `/pause`, `/mentions`), who is
/// pinged, and the `⏳` of prompts queued behind a running turn.
extension ChatDelivery {
    /// Whether `binding`'s chat gets `what`: nothing while paused; live views, notices and echoes
    /// only in normal and verbose; no "typing…" before the one message of completion-only.
    package func wants(_ binding: Binding, _ what: DeliveryWant) async -> Bool {
        if await preferences.pausedSince(binding.key) != nil { return false }
        let mode = await preferences.progress(binding.key)
        switch what {
        case .typing: return mode != .completionOnly
        case .progress: return mode.showsProgress
        case .questions, .final: return true
        }
    }

    /// The user to mention in `binding`'s chat about the session's run: whoever sent its latest
    /// prompt there, unless the chat turned mentions off.
    package func mention(in binding: Binding, for sessionID: String) async -> String? {
        guard let user = pings.requester(of: sessionID, in: binding.key) else { return nil }
        return await preferences.mentions(binding.key) ? user : nil
    }

    package func noteRequester(_ chat: Chat, of sessionID: String) {
        pings.prompted(sessionID, by: Requester(chatKey: chat.key, user: chat.user))
    }

    // MARK: Queued prompts

    /// Called before a prompt that may queue is sent, so pi taking it at once is not missed.
    package func expectQueued(_ prompt: QueuedPrompt, in sessionID: String) {
        queuedPrompts[sessionID, default: []].append(prompt)
    }

    /// After the prompt was sent: whether the chat should be answered with a `⏳` (it queued and
    /// pi has not taken it yet). Otherwise it is forgotten.
    package func settleQueued(messageID: String, in sessionID: String, queued: Bool) -> Bool {
        guard var list = queuedPrompts[sessionID], let index = list.firstIndex(where: { $0.messageID == messageID }) else { return false }
        guard queued, !list[index].taken else {
            list.remove(at: index)
            queuedPrompts[sessionID] = list.isEmpty ? nil : list
            return false
        }
        list[index].reacted = true
        queuedPrompts[sessionID] = list
        if list[index].spawned { saveQueued() }
        return true
    }

    /// pi took a user message: the oldest queued prompt with its text loses its `⏳`.
    package func promptTaken(_ text: String, in sessionID: String) async {
        guard var list = queuedPrompts[sessionID], let index = list.firstIndex(where: { $0.text == text && !$0.taken }) else { return }
        let prompt = list[index]
        if prompt.reacted {
            list.remove(at: index)
            queuedPrompts[sessionID] = list.isEmpty ? nil : list
            if prompt.spawned { saveQueued() }
            await deliver(
                prompt.messenger, .chatReact,
                ChatReactParams(target: prompt.target, messageID: prompt.messageID, emoji: Self.queuedMark, remove: true))
        } else {
            list[index].taken = true
        }
        queuedPrompts[sessionID] = list.isEmpty ? nil : list
    }

    /// pi's queue is gone with prompts in it: pi exited (it keeps its queue in memory only), or a
    /// new conversation emptied it. Each loses its `⏳`, and its chat is told it did not run
    /// (`why`, ending "your queued message"), rather than waiting under an hourglass for a turn
    /// that will not come. Not sent again by itself: the run they waited behind may be what
    /// ended pi.
    package func dropQueued(in sessionID: String, because why: String) async {
        guard let list = queuedPrompts.removeValue(forKey: sessionID) else { return }
        if list.contains(where: \.spawned) { saveQueued() }
        for prompt in list where prompt.reacted && !prompt.taken {
            await deliver(
                prompt.messenger, .chatReact,
                ChatReactParams(target: prompt.target, messageID: prompt.messageID, emoji: Self.queuedMark, remove: true))
            await tell(prompt, "error", "Not run: \(why) (“\(Self.preview(prompt))”). Send it again to run it.", in: sessionID)
        }
    }

    /// A stopped run: pi's abort keeps what it had queued, and its next run starts with it
    /// (pi-rpc spec §5). The chats are told, and keep their ⏳ until pi takes the message.
    package func stillQueued(in sessionID: String) async {
        guard var list = queuedPrompts[sessionID] else { return }
        for index in list.indices where list[index].reacted && !list[index].taken && !list[index].keptAfterStop {
            list[index].keptAfterStop = true
            await tell(
                list[index], "info",
                "The run was stopped, but pi keeps your queued message (“\(Self.preview(list[index]))”): it comes in the run the next prompt starts.",
                in: sessionID)
        }
        queuedPrompts[sessionID] = list
    }

    /// At start: the prompts a killed daemon left waiting in its pis' queues. Those pis went with
    /// it, and their queues too; each chat is told, and its `⏳` comes off.
    package func dropQueued(fromBefore records: [QueuedPromptRecord]) async {
        guard !records.isEmpty else { return }
        for record in records { queuedPrompts[record.sessionID, default: []].append(record.prompt) }
        for sessionID in Set(records.map(\.sessionID)).sorted() {
            await dropQueued(in: sessionID, because: "pi-relayd stopped (killed, or the machine went down) before pi reached your queued message")
        }
        saveQueued()
    }

    /// What waits under a `⏳` in the spawned pis, on disk. A failed save is logged: the hourglass
    /// is all that is lost if the daemon is killed before the next one.
    private func saveQueued() {
        guard let queuedFile else { return }
        let waiting = queuedPrompts.flatMap { sessionID, list in
            list.filter { $0.spawned && $0.reacted && !$0.taken }.map { QueuedPromptRecord($0, in: sessionID) }
        }
        do {
            try queuedFile.save(waiting)
            queuedFailures.saved(queuedFile.name)
        } catch {
            if queuedFailures.failed(queuedFile.name, error) { logger.warning("cannot save \(queuedFile.path): \(error)") }
        }
    }

    private func tell(_ prompt: QueuedPrompt, _ kind: String, _ words: String, in sessionID: String) async {
        let text = await notice(kind, words, dialect: dialect(of: prompt.messenger))
        await deliver(prompt.messenger, .chatPost, ChatPostParams(target: prompt.target, kind: .notice, sessionID: sessionID, text: text))
    }

    private static func preview(_ prompt: QueuedPrompt) -> Substring {
        prompt.text.count > 80 ? prompt.text.prefix(79) + "…" : prompt.text[...]
    }

    package static let queuedMark = "⏳"

    /// Open questions posted again to one chat (it was paused when they were asked).
    package func askAgain(_ questions: [PendingQuestion], in sessionID: String, chatKey: String) async {
        for question in questions { await ask(question, in: sessionID, icon: "❓", onlyTo: chatKey) }
    }
}
