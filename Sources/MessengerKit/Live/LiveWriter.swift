/// What writes a live view's messages: a messenger's poster, at the platform's pace.
public protocol LiveWriter: Sendable {
    associatedtype Place: MessengerPlace
    associatedtype MessageID: Codable & Sendable & Equatable

    /// Posts a new message of a live view, quietly where the platform can; returns its id.
    func sendLive(_ text: String, to place: Place) async throws -> MessageID
    /// Edits a live view's message; returns its id after the edit when the platform gave it a
    /// new one (a message it could not edit, posted again), else nil.
    func editLive(_ id: MessageID, in place: Place, to text: String) async throws -> MessageID?
}
