/// Who is mentioned when a long run ends: whoever sent the session's latest prompt from a
/// chat, in that chat, when the run lasted longer than `notify.longRunSeconds`. Pure: the
/// delivery passes the time.
package struct LongRunPings {
    /// `notify.longRunSeconds`.
    package let longerThan: Duration
    /// When each run in progress started, by run id.
    private var starts: [String: ContinuousClock.Instant] = [:]
    /// Who sent each session's latest prompt from a chat, by session id.
    private var requesters: [String: Requester] = [:]

    package init(longerThan: Duration) {
        self.longerThan = longerThan
    }

    package mutating func runStarted(_ runID: String, at now: ContinuousClock.Instant) {
        starts[runID] = now
    }

    /// Run `runID` ended at `now`: whether it lasted long enough to mention its requester (a
    /// run that started before this daemon did not).
    package mutating func runEnded(_ runID: String, at now: ContinuousClock.Instant) -> Bool {
        starts.removeValue(forKey: runID).map { now - $0 > longerThan } ?? false
    }

    package mutating func prompted(_ sessionID: String, by requester: Requester) {
        requesters[sessionID] = requester
    }

    /// The user to mention in chat `chatKey` about the session's run, if they prompted it there.
    package func requester(of sessionID: String, in chatKey: String) -> String? {
        guard let requester = requesters[sessionID], requester.chatKey == chatKey, !requester.user.isEmpty else { return nil }
        return requester.user
    }
}
