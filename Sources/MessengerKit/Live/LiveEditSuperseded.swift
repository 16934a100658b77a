/// A live write (an edit, a run's next post, or its turn) that gave way, unsent, to the final
/// answer that replaces it (`LiveWriter.finalTakesOver`): the message, if there is one, still
/// shows what it showed before.
public struct LiveEditSuperseded: Error, Sendable {
    public init() {}
}
