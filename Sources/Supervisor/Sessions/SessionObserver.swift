import PiRelaySDK

/// Who hears what a session does: the chat delivery (which tells chats) and `stream` watchers.
package protocol SessionObserver: Sendable {
    func session(_ id: String, did news: SessionNews) async

    /// The session's current run changed. Returns true when the observer will fetch the run
    /// itself (`PiSession.liveRun`) when it next shows it: the session tells no further change
    /// until then, so a run streaming many lines a second costs a hop per view, not per line.
    func session(_ session: PiSession, changed run: RunRecord) async -> Bool
}

package enum SessionNews: Sendable {
    case runStarted(RunRecord)
    case runFinished(RunRecord)
    case questionAsked(PendingQuestion)
    /// An approval gate's question: to the chat `onlyTo` (the running prompt's), or to all.
    case approvalAsked(PendingQuestion, onlyTo: String?)
    case questionClosed(PendingQuestion, outcome: String)
    /// A short line worth showing: a notify from an extension, a late prompt rejection.
    case notice(kind: String, text: String)
    /// A run that will never end (pi-relayd was killed during it): said in place of its final,
    /// so every chat that waits for finals hears it, a quiet one too.
    case runCutOff(text: String)
    case exited(reason: String)
    case promptEcho(text: String, origin: String)
    /// pi took a user message (`message_start`, role user): a prompt, or a queued one delivered.
    case promptTaken(text: String)
    /// pi's queue outlived a stop or was emptied (pi-rpc spec §5): `abort` keeps what it had
    /// queued for its next run; `new_session` and `switch_session` empty it.
    case queue(QueueFate)
}

package enum QueueFate: Sendable, Equatable {
    /// After an abort: what was queued runs with the next prompt.
    case keptAfterStop
    /// A new conversation (or another one resumed) emptied it: none of it runs.
    case emptied(because: String)
}
