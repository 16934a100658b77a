/// What writes a live view's messages: a messenger's poster, at the platform's pace.
public protocol LiveWriter: Sendable {
    associatedtype Place: MessengerPlace
    associatedtype MessageID: Codable & Sendable & Equatable

    /// Posts a new message of a live view, quietly where the platform can; returns its id.
    func sendLive(_ text: String, to place: Place) async throws -> MessageID
    /// Edits a live view's message; returns its id after the edit when the platform gave it a
    /// new one (a message it could not edit, posted again), else nil.
    func editLive(_ id: MessageID, in place: Place, to text: String) async throws -> MessageID?

    /// Waits until the platform's budget lets a live write to `place` go, and takes its place:
    /// the write that follows goes at once. Waiting before the write, not inside it, lets the
    /// newest view be the one written (a newer view replaces one still waiting).
    func liveTurn(in place: Place) async throws
}

extension LiveWriter {
    /// A platform whose client paces each call itself: nothing to wait for here.
    public func liveTurn(in place: Place) async throws {}
}
