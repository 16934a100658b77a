import Logging

extension QuestionMessages {
    /// How long a closing whose edit failed for now waits before it is tried again.
    static let retry: Duration = .seconds(2)

    /// Shows each closing as it is noted, one edit at a time, until cancelled: the question's
    /// message says who answered and what came of it, and its controls are gone. An edit Slack
    /// will never take (the message or channel is gone) is given up; any other failure is tried
    /// again.
    func showClosings(poster: Poster, logger: Logger) async {
        for await _ in wakes {
            while let message = nextClosing {
                let place = Place(channel: message.channel, thread: message.thread)
                let title = SlackText.escaped(message.title)
                var note = SlackText.escaped(message.closing ?? "")
                if let user = message.answeredBy { note = "Answered by " + SlackText.mention(user) + ". " + note }
                do {
                    try await poster.edit(message.ts, in: place, to: title + "\n" + note, blocks: Blocks.closed(title, note: note), priority: .answer)
                    await shown(message)
                } catch let error as SlackAPIError where error.isPermanent {
                    logger.warning("closing question \(message.questionID): \(error)")
                    await shown(message)
                } catch {
                    if Task.isCancelled { return }
                    logger.info("closing question \(message.questionID): \(error); trying again")
                    try? await Task.sleep(for: Self.retry)
                }
                if Task.isCancelled { return }
            }
        }
    }
}
