import PiRelaySDK

/// Guided answers (issue 17 point 7, PiRelay's rules): while a final's options or question are
/// open, a short reply such as `2`, `option 2` or `choose B` answers it, longer text is a new
/// prompt, and a reply that could be either is asked back: prompt, answer, or cancel. The words
/// work alone too: a bare `answer` steps through the options, `cancel` leaves the flow (nothing
/// is sent to pi), and a reply asked back takes `answer`, `prompt` or `cancel` as its buttons do.
extension ChatDesk {
    /// What a plain message does to the session's open choice; nil when it is an ordinary prompt.
    package func guidedMessage(_ text: String, chat: Chat, session: PiSession, arrival: PromptSender.Arrival) async throws -> ChatMessageResult? {
        let guided = delivery.guided
        // The step the chat was in (a custom answer, a step-through, a reply asked back) is taken
        // by this message: it answers, or says a word, or overtakes it.
        if let step = await guided.takeWaiting(chat.key) {
            switch step {
            case .customAnswer(let id, let token), .answering(let id, let token):
                guard id == session.id, let choice = await guided.choice(session: id, token: token) else { break }
                if GuidedReply.word(text, for: choice) == .cancel { return await leave(session: session) }
                if case .customAnswer = step { return try await answer(GuidedChoice.answer(text), chat: chat, session: session, arrival: arrival) }
                return try await answer(GuidedReply.answer(text, for: choice), chat: chat, session: session, arrival: arrival)
            case .held(let id, let token, let held):
                guard id == session.id, await guided.choice(session: id, token: token) != nil, let word = GuidedReply.word(text) else { break }
                return try await heldReply(held, word, chat: chat, session: session, arrival: arrival)
            }
        }
        guard let open = await guided.choice(session: session.id) else { return nil }
        switch GuidedReply.word(text, for: open.choice) {
        case .answer?:
            await guided.wait(chat.key, .answering(session: session.id, token: open.token))
            var reply = Reply(open.choice.card)
            reply.actions = open.choice.buttons(session: session.id, token: open.token, cancel: true)
            return ChatMessageResult(status: .command, reply: reply)
        case .cancel?:
            return await leave(session: session)
        case .prompt?, nil:
            break
        }
        switch GuidedReply.classify(text, for: open.choice) {
        case .prompt:
            return nil
        case .answer(let answer):
            return try await self.answer(answer, chat: chat, session: session, arrival: arrival)
        case .ambiguous:
            await guided.wait(chat.key, .held(session: session.id, token: open.token, text: text))
            let prefix = "gb:\(session.id):\(open.token):"
            var reply = Reply("Is “\(text)” your answer to the question, or a new prompt? (answer, prompt or cancel)")
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

    /// The buttons of a choice (`ga:SESSION:TOKEN:LABEL|custom|cancel`) and of a reply asked back
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
            if pick == "cancel" {
                _ = await guided.takeWaiting(chat.key)
                return await leave(session: session).reply ?? Reply("Cancelled.", ephemeral: true)
            }
            guard let option = choice.option(labelled: pick) else { return Reply("No option \(pick).", ephemeral: true) }
            _ = await guided.takeWaiting(chat.key)
            let result = try await answer(GuidedChoice.answer(option), chat: chat, session: session, arrival: nil)
            return result.reply ?? Reply("Answered: \(option.label). \(option.text)", ephemeral: true)
        }
        guard case .held(let id, let heldToken, let text)? = await guided.takeWaiting(chat.key), id == session.id, heldToken == token,
            let word = GuidedReply.Word(rawValue: pick)
        else {
            return Reply("That reply is no longer waiting.", ephemeral: true)
        }
        let result = try await heldReply(text, word, chat: chat, session: session, arrival: nil)
        return result.reply ?? Reply(word == .answer ? "Sent as your answer." : "Sent as a prompt.", ephemeral: true)
    }

    /// A reply asked back, settled by a word or its button.
    private func heldReply(
        _ held: String, _ word: GuidedReply.Word, chat: Chat, session: PiSession, arrival: PromptSender.Arrival?
    ) async throws -> ChatMessageResult {
        switch word {
        case .answer: return try await answer(GuidedChoice.answer(held), chat: chat, session: session, arrival: arrival)
        case .prompt: return try await answer(held, chat: chat, session: session, arrival: arrival)
        case .cancel: return ChatMessageResult(status: .command, reply: Reply("Cancelled: nothing was sent.", ephemeral: true))
        }
    }

    /// `cancel`: the choice is dropped, so short replies are prompts again; nothing goes to pi.
    private func leave(session: PiSession) async -> ChatMessageResult {
        await delivery.guided.close(session: session.id)
        return ChatMessageResult(status: .command, reply: Reply("Cancelled: nothing was sent. Your next message is a prompt.", ephemeral: true))
    }

    /// Sends an answer to the session as its next prompt. A prompt the session refuses (a full
    /// queue, a terminal pi without a key) is answered with the reason, as any prompt is.
    private func answer(_ text: String, chat: Chat, session: PiSession, arrival: PromptSender.Arrival?) async throws -> ChatMessageResult {
        do {
            _ = try await prompter.prompt(session, kind: .send, text: text, images: [], origin: chat.key, arrival: arrival)
        } catch {
            guard let refusal = Self.refusal(error) else { throw error }
            return refusal
        }
        return ChatMessageResult(status: .answered)
    }
}
