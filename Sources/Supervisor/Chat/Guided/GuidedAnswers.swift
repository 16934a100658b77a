import FoundationEssentials

/// The guided choices open in each session (the last final ended with options or a question,
/// and no run has started since) and what each chat is in the middle of: a custom answer
/// (the next message answers) or a reply asked back. Closed when the session's next run starts.
package actor GuidedAnswers {
    package struct Open: Sendable, Equatable {
        /// Names the choice in buttons, so a button of an older one finds nothing.
        package var token: String
        package var choice: GuidedChoice
    }

    /// What a chat's next step is about.
    package enum Waiting: Sendable, Equatable {
        /// "Custom answer" was pressed: the next message is the answer.
        case customAnswer(session: String, token: String)
        /// A reply that might be an answer, held until the user says what it is.
        case held(session: String, token: String, text: String)
        /// A bare `answer` started a step-through: the next message answers, by an option's
        /// label or text, or in its own words.
        case answering(session: String, token: String)
    }

    private var open: [String: Open] = [:]
    private var waiting: [String: Waiting] = [:]
    private var issued = 0

    /// A choice a final ended with; returns its token.
    package func offer(_ choice: GuidedChoice, session: String) -> String {
        issued += 1
        let token = String(issued, radix: 36) + String(UInt32.random(in: 0..<UInt32.max) % 46_656, radix: 36)
        open[session] = Open(token: token, choice: choice)
        return token
    }

    /// A run started in the session: its choice is answered or overtaken.
    package func close(session: String) {
        open[session] = nil
        waiting = waiting.filter { _, step in
            switch step {
            case .customAnswer(let id, _), .held(let id, _, _), .answering(let id, _): return id != session
            }
        }
    }

    package func choice(session: String) -> Open? { open[session] }

    /// The choice of this token, if it is still open.
    package func choice(session: String, token: String) -> GuidedChoice? {
        guard let found = open[session], found.token == token else { return nil }
        return found.choice
    }

    package func wait(_ chat: String, _ step: Waiting) { waiting[chat] = step }

    /// What the chat was in the middle of, taken (it happens once).
    package func takeWaiting(_ chat: String) -> Waiting? { waiting.removeValue(forKey: chat) }
}
