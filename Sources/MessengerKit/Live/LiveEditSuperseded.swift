/// A live edit that gave way, unsent, to the final answer that replaces it
/// (`LiveWriter.finalTakesOver`): the message still shows what it showed before.
public struct LiveEditSuperseded: Error, Sendable {
    public init() {}
}
