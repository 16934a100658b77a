import PiRelaySDK

/// Posts to a chat that watches several sessions carry the session's marker and label
/// (issue 17 point 3), so a reader tells at a glance which project speaks.
extension ChatDelivery {
    /// Called once the sessions exist (they are made with this delivery as their observer).
    package func attach(_ sessions: Sessions) {
        directory = sessions
    }

    /// "🔵 api" (the chat's alias when it gave one) for a chat watching several sessions; nil
    /// for a chat watching one, whose posts stay as they were.
    package func label(_ binding: Binding) async -> String? {
        guard await bindings.watched(binding.key).count > 1, let session = await directory?.session(id: binding.sessionID) else { return nil }
        if let alias = await bindings.alias(binding.key, sessionID: session.id) { return session.marker + " " + alias }
        return session.marker + " " + (await session.name)
    }

    /// The post with the session's label before its text, its first chunk, or its question.
    package func labeled(_ params: ChatPostParams, for binding: Binding) async -> ChatPostParams {
        guard let label = await label(binding) else { return params }
        // A notice's text and a final's chunks are in the messenger's dialect; every other text is
        // plain, and the messenger escapes it (PROTOCOL.md, "Markup"): escaped here too, it
        // showed `R&amp;D`.
        let shown = dialect(of: binding.messenger).escape(label)
        var params = params
        if let text = params.text { params.text = (params.kind == .notice ? shown : label) + " · " + text }
        if var chunks = params.chunks, !chunks.isEmpty {
            chunks[0] = shown + "\n" + chunks[0]
            params.chunks = chunks
        }
        if var question = params.question {
            question.title = label + " · " + question.title
            params.question = question
        }
        return params
    }

    /// A live view with the label on its first line.
    package static func labeled(_ view: FormatLiveResult, _ label: String) -> FormatLiveResult {
        var view = view
        if view.chunks.isEmpty { view.tail = label + "\n" + view.tail } else { view.chunks[0] = label + "\n" + view.chunks[0] }
        return view
    }
}
