/// A prompt refused because its session already has `sessions.limits.queueMax` prompts waiting.
struct QueueFull: Error, CustomStringConvertible {
    let session: String
    let waiting: Int

    var description: String {
        "⛔ \(session) already has \(waiting) prompt(s) waiting (sessions.limits.queueMax): yours was not sent. "
            + "Send it again once the run has finished, or /stop the run."
    }
}
