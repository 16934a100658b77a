import PiRelaySDK

/// Guided answers (issue 17 point 7, PiRelay's rules): while a final's options or question are
/// open, a short reply such as `2`, `option 2` or `choose B` answers it, longer text is a new
/// prompt, and a reply that could be either is asked back: prompt, answer, or cancel.
extension ChatDesk {
    /// What a plain message does to the session's open choice; nil when it is an ordinary prompt.
    package func guidedMessage(_ text: String, chat: Chat, session: PiSession, arrival: PromptSender.Arrival) async throws -> ChatMessageResult? {
        let guided = delivery.guided
        // A message after "Custom answer" is the answer, whatever it says; any other step the
        // chat was in (a reply asked back) is overtaken by the new message.
        if case .customAnswer(let id, let token)? = await guided.takeWaiting(chat.key), id == session.id,
            await guided.choice(session: id, token: token) != nil
        {
            return try await answer(GuidedChoice.answer(text), chat: chat, session: session, arrival: arrival)
        }
        guard let open = await guided.choice(session: session.id) else { return nil }
        switch GuidedReply.classify(text, for: open.choice) {
        case .prompt:
            return nil
        case .answer(let answer):
            return try await self.answer(answer, chat: chat, session: session, arrival: arrival)
        case .ambiguous:
            await guided.wait(chat.key, .held(session: session.id, token: open.token, text: text))
            let prefix = "gb:\(session.id):\(open.token):"
            var reply = Reply("Is “\(text)” your answer to the question, or a new prompt?")
            reply.actions = [
                [
                    .init(id: prefix + "answer", label: "Answer", style: "primary"),
                    .init(id: prefix + "prompt", label: "Send as prompt", style: "secondary"),
                    .init(id: prefix + "cancel", label: "Cancel", style: "danger"),
                ]
            ]
            return ChatMessageResult(status: .held, reply: reply)
        }
    }

    /// The buttons of a choice (`ga:SESSION:TOKEN:LABEL|custom`) and of a reply asked back
    /// (`gb:SESSION:TOKEN:answer|prompt|cancel`).
    package func guidedAction(_ parts: [String], chat: Chat) async throws -> Reply {
        let guided = delivery.guided
        guard parts.count == 4, let session = await sessions.session(id: parts[1]) else { return Reply("That session is gone.", ephemeral: true) }
        let (token, pick) = (parts[2], parts[3])
        guard let choice = await guided.choice(session: session.id, token: token) else {
            return Reply("That choice is no longer open: the session has moved on.", ephemeral: true)
        }
        if parts[0] == "ga" {
            if pick == "custom" {
                await guided.wait(chat.key, .customAnswer(session: session.id, token: token))
                return Reply("Send your answer as your next message.", ephemeral: true)
            }
            guard let option = choice.option(labelled: pick) else { return Reply("No option \(pick).", ephemeral: true) }
            let result = try await answer(GuidedChoice.answer(option), chat: chat, session: session, arrival: nil)
            return result.reply ?? Reply("Answered: \(option.label). \(option.text)", ephemeral: true)
        }
        guard case .held(let id, let heldToken, let text)? = await guided.takeWaiting(chat.key), id == session.id, heldToken == token else {
            return Reply("That reply is no longer waiting.", ephemeral: true)
        }
        switch pick {
        case "answer":
            let result = try await answer(GuidedChoice.answer(text), chat: chat, session: session, arrival: nil)
            return result.reply ?? Reply("Sent as your answer.", ephemeral: true)
        case "prompt":
            let result = try await answer(text, chat: chat, session: session, arrival: nil)
            return result.reply ?? Reply("Sent as a prompt.", ephemeral: true)
        default:
            return Reply("Cancelled: nothing was sent.", ephemeral: true)
        }
    }

    /// Sends an answer to the session as its next prompt. A prompt the session refuses (a full
    /// queue, a terminal pi without a key) is answered with the reason, as any prompt is.
    private func answer(_ text: String, chat: Chat, session: PiSession, arrival: PromptSender.Arrival?) async throws -> ChatMessageResult {
        do {
            _ = try await prompter.prompt(session, kind: .send, text: text, images: [], origin: chat.key, arrival: arrival)
        } catch let full as QueueFull {
            return ChatMessageResult(status: .refused, reply: Reply(full.description))
        } catch let refused as PromptRefused {
            return ChatMessageResult(status: .refused, reply: Reply(refused.description))
        }
        return ChatMessageResult(status: .answered)
    }
}
