import PiRelaySDK

/// Who hears what a session does: the chat delivery (which tells chats) and `stream` watchers.
protocol SessionObserver: Sendable {
    func session(_ id: String, did news: SessionNews) async
}

enum SessionNews: Sendable {
    case runStarted(RunRecord)
    /// The run changed; cheap to send often: the observer throttles.
    case runUpdated(RunRecord)
    case runFinished(RunRecord)
    case questionAsked(PendingQuestion)
    /// An approval gate's question: to the chat `onlyTo` (the running prompt's), or to all.
    case approvalAsked(PendingQuestion, onlyTo: String?)
    case questionClosed(PendingQuestion, outcome: String)
    /// A short line worth showing: a notify from an extension, a late prompt rejection.
    case notice(kind: String, text: String)
    case exited(reason: String)
    case promptEcho(text: String, origin: String)
}
