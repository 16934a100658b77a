/// What writes a live view's messages: a messenger's poster, at the platform's pace.
public protocol LiveWriter: Sendable {
    associatedtype Place: MessengerPlace
    associatedtype MessageID: Codable & Sendable & Equatable

    /// Posts a new message of a live view, quietly where the platform can; returns its id.
    /// `slot`: which run's message it is, for a platform that finds a repeated post by a key.
    func sendLive(_ text: String, to place: Place, slot: LiveSlot) async throws -> MessageID
    /// Edits a live view's message; returns its id after the edit when the platform gave it a
    /// new one (a message it could not edit, posted again), else nil.
    func editLive(_ id: MessageID, in place: Place, to text: String) async throws -> MessageID?

    /// Waits until the platform's budget lets a live write of `run` to `place` go, and takes its
    /// place: the write that follows goes at once. Waiting before the write, not inside it, lets
    /// the newest view be the one written (a newer view replaces one still waiting).
    func liveTurn(in place: Place, run: String) async throws

    /// The run's final answer is here and takes over `messages`: a live write of the run still
    /// waiting for its place (an edit of one of them, the run's next post, or its turn) gives
    /// way, unsent (it throws `LiveEditSuperseded`), so the final does not wait for a write it
    /// will replace.
    func finalTakesOver(run: String, messages: [MessageID], in place: Place) async

    /// Whether a failed live write means the run's view cannot be shown here at all (the bot may
    /// not post in the channel): its writes then stop until the final answer, instead of trying
    /// again with every view and piling up refused calls.
    func givesUp(after error: any Error) -> Bool
}

extension LiveWriter {
    /// A platform whose client paces each call itself: nothing to wait for here.
    public func liveTurn(in place: Place, run: String) async throws {}

    /// A platform whose live writes wait for nothing the final could take over.
    public func finalTakesOver(run: String, messages: [MessageID], in place: Place) async {}

    /// A platform whose refusals the client already keeps from repeating.
    public func givesUp(after error: any Error) -> Bool { false }
}
