/// Ends a session for good (`/end`, `/forget`, `pi-relayd end`, the idle limit): the chats that
/// watch it are told why, then watch it no more, then it ends. Without the word, a chat that
/// watched it found out only when its next message met "No session here yet".
package struct SessionEnd: Sendable {
    package let sessions: Sessions
    package let bindings: ChatBindings
    package let observer: any SessionObserver

    package init(sessions: Sessions, bindings: ChatBindings, observer: any SessionObserver) {
        self.sessions = sessions
        self.bindings = bindings
        self.observer = observer
    }

    /// `notice` goes to every chat watching but `asking`, which its own reply answers.
    package func end(_ session: PiSession, notice: (kind: String, text: String), asking: String? = nil) async {
        if let asking { await bindings.unwatchEverywhere(session.id, only: [asking]) }
        await observer.session(session.id, did: .notice(kind: notice.kind, text: notice.text))
        await bindings.unwatchEverywhere(session.id)
        await sessions.end(session)
    }
}
