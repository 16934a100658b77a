import FoundationEssentials

/// A session's health figures (seed 003's): how long its prompts take to their first text and to
/// their final, its timeouts, and the prompts waiting in pi's queue behind a run. Pure: the
/// session passes the clock. Kept in memory for `status` and `/metrics`; a restart starts anew.
package struct SessionHealth: Sendable {
    package enum Latency: String, Sendable, CaseIterable {
        /// From the prompt reaching pi (or its run starting, for one that waited in pi's queue)
        /// to the run's first text.
        case firstText = "first_text"
        /// From the same start to the run's end.
        case final
    }

    /// Timeouts by kind: `command` (pi did not answer, and was restarted), `run`
    /// (`sessions.limits.maxRunSeconds`), `approval` (nobody decided a gate in time).
    package private(set) var timeouts: [String: Int] = [:]
    package private(set) var latency: [Latency: LatencySample] = [:]
    /// Prompts queued behind a run, oldest first, until pi takes them (its `message_start` of
    /// the user's message: pi-rpc spec, queued messages show up inside the same run).
    /// Each with the chat it came from (`PromptSender`'s origin), nil for none known.
    package private(set) var queued: [(text: String, at: Date, origin: String?)] = []
    private var since: ContinuousClock.Instant?
    private var textSeen = false

    package init() {}

    /// A prompt that starts a run was written to pi.
    package mutating func prompted(at now: ContinuousClock.Instant) {
        since = now
    }

    /// pi refused the prompt: no run comes of it.
    package mutating func promptRefused() {
        since = nil
    }

    /// A run started: timed from its prompt, or from now when none was seen (a queued prompt,
    /// a run the terminal started).
    package mutating func runStarted(at now: ContinuousClock.Instant) {
        if since == nil { since = now }
        textSeen = false
    }

    /// Whether the run's first text is still to be timed: only then need a change be looked at
    /// (a run changes with nearly every line pi writes).
    package var awaitsText: Bool { since != nil && !textSeen }

    /// The run changed; `hasText` once the agent has said something.
    package mutating func runChanged(hasText: Bool, at now: ContinuousClock.Instant) {
        guard hasText, !textSeen, let since else { return }
        textSeen = true
        latency[.firstText, default: LatencySample()].add(now - since)
    }

    package mutating func runFinished(at now: ContinuousClock.Instant) {
        if let since { latency[.final, default: LatencySample()].add(now - since) }
        since = nil
        textSeen = false
    }

    package mutating func promptQueued(_ text: String, at now: Date, origin: String? = nil) {
        queued.append((text, now, origin))
    }

    /// pi took a user message: the queued prompt with that text, if any, is no longer waiting.
    /// Returns the chat that prompt came from, when one is known.
    @discardableResult
    package mutating func promptTaken(_ text: String) -> String? {
        guard let index = queued.firstIndex(where: { $0.text == text }) else { return nil }
        return queued.remove(at: index).origin
    }

    /// pi started another conversation (`new_session`, `switch_session`): the queue was the
    /// last one's.
    package mutating func conversationReplaced() {
        queued.removeAll()
    }

    /// pi is gone, and its queue with it.
    package mutating func childExited() {
        queued.removeAll()
        since = nil
    }

    package mutating func timedOut(_ kind: String) {
        timeouts[kind, default: 0] += 1
    }
}
