import Logging

/// Where a messenger keeps the questions it posted, and the closings it owes them. A closing
/// (`chat.question.closed`) is noted, saved, and shown by `showClosings`, not by the delivery:
/// its edit waits for the chat's budget like any write, and the chat's next question, which
/// needs the user, must not wait in the delivery lane behind it.
public protocol QuestionClosings: Actor {
    associatedtype Card: Sendable
    /// Yields when a closing is noted (and at start, when a previous run left some unshown).
    nonisolated var closingsNoted: AsyncStream<Void> { get }
    /// The next closed question whose message does not say so yet, with what it is to say.
    var nextClosing: (card: Card, text: String)? { get }
    /// The card's message says it is closed (or never can): the card is forgotten.
    func closingShown(_ card: Card) async
}

extension QuestionClosings {
    /// Shows each closing as it is noted, one edit at a time, until cancelled. An edit the
    /// platform will never take (`givesUp`: the message or the chat is gone) is given up; any
    /// other failure is tried again after `retry`.
    public func showClosings(
        logger: Logger, retry: Duration = .seconds(2), givesUp: @Sendable (any Error) -> Bool,
        show: @Sendable (Card, String) async throws -> Void
    ) async {
        for await _ in closingsNoted {
            while let (card, text) = nextClosing {
                do {
                    try await show(card, text)
                    await closingShown(card)
                } catch  where givesUp(error) {
                    logger.warning("closing a question: \(error)")
                    await closingShown(card)
                } catch {
                    if Task.isCancelled { return }
                    logger.info("closing a question: \(error); trying again")
                    try? await Task.sleep(for: retry)
                }
                if Task.isCancelled { return }
            }
        }
    }
}
