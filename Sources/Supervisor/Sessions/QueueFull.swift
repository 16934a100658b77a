/// A prompt refused because its session already has `sessions.limits.queueMax` prompts waiting.
package struct QueueFull: Error, CustomStringConvertible {
    package let session: String
    package let waiting: Int

    package var description: String {
        "⛔ \(session) already has \(waiting) prompt(s) waiting (sessions.limits.queueMax): yours was not sent. "
            + "Send it again once the run has finished, or /stop the run."
    }
}
