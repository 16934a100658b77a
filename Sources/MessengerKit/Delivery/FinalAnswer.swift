/// A run's final answer in a conversation. The messages the run's live view put up (if any)
/// become its chunks, in order; the rest follow. Live messages beyond the answer's chunks (the
/// view ran longer than a preview) are deleted, or they would repeat it. Each part is done once
/// across restarts (`DeliveryParts`), under keys `DELIVERY:INDEX` and `DELIVERY:dropINDEX`.
public struct FinalAnswer<Writer: FinalWriter>: Sendable {
    /// How the answer's chunks were shown: the first `reused` turned live messages into chunks,
    /// the `posted` after them went out as new messages.
    public struct Outcome: Sendable, Equatable {
        public let reused: Int
        public let posted: Int

        public init(reused: Int, posted: Int) {
            self.reused = reused
            self.posted = posted
        }
    }

    let writer: Writer
    let live: LiveMessages<Writer>
    let parts: DeliveryParts

    public init(writer: Writer, live: LiveMessages<Writer>, parts: DeliveryParts) {
        self.writer = writer
        self.live = live
        self.parts = parts
    }

    /// Posts `chunks` as delivery `delivery`'s answer to run `runID`. `beforeDone`: what must go
    /// out before the run's live messages are forgotten (a long answer's file), so a plugin
    /// killed in between still finds them.
    @discardableResult
    public func post(
        _ delivery: String, runID: String?, chunks: [String], in place: Writer.Place, beforeDone: (Outcome) async throws -> Void = { _ in }
    ) async throws -> Outcome {
        var shown: [LiveMessages<Writer>.Message] = []
        if let runID { shown = await live.finish(runID, in: place) }
        try await parts.send(chunks, of: delivery) { index, chunk in
            if index < shown.count {
                // An edit in doubt is made again: at worst the platform says "not modified".
                if !shown[index].certainlyShows(chunk, same: live.same) { try await writer.editFinal(shown[index].id, in: place, to: chunk) }
            } else {
                let part = FinalPart(delivery: delivery, runID: runID, index: index, count: chunks.count, firstPosted: index == shown.count)
                try await writer.sendFinal(chunk, to: place, part: part)
            }
        }
        for (index, extra) in shown.enumerated().dropFirst(chunks.count) {
            try await parts.once("\(delivery):drop\(index)") { try await writer.deleteLive(extra.id, in: place) }
        }
        let reused = min(shown.count, chunks.count)
        let outcome = Outcome(reused: reused, posted: chunks.count - reused)
        try await beforeDone(outcome)
        if let runID { await live.done(runID, in: place) }
        return outcome
    }
}
