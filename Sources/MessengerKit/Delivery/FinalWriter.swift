/// What writes a final answer: a messenger's poster, turning a run's live messages into the
/// answer's chunks.
public protocol FinalWriter: LiveWriter {
    /// Posts a chunk of the answer (it notifies, where live views do not); `part` says which.
    func sendFinal(_ chunk: String, to place: Place, part: FinalPart) async throws
    /// Turns a live message into a chunk of the answer.
    func editFinal(_ id: MessageID, in place: Place, to chunk: String) async throws
    /// Deletes a live message the answer does not need. An error that repeating cannot fix (the
    /// message is gone) is the writer's to swallow, or the delivery would come back forever.
    func deleteLive(_ id: MessageID, in place: Place) async throws
}
