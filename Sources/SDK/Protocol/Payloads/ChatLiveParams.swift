/// `chat.live`, a droppable notification (supervisor → messenger): the newest view of a run
/// still going. Keep the newest `rev` per `runId`, post each finished chunk once, and edit one
/// message in place with `tail`.
public struct ChatLiveParams: Sendable, Equatable {
    /// Where the run is watched.
    public var target: Target
    /// The session.
    public var sessionID: String
    /// The run.
    public var runID: String
    /// Counts up from 1 per run; some may be skipped.
    public var rev: Int
    /// Finished chunks, never changed once sent for a run.
    public var chunks: [String]
    /// The part still growing.
    public var tail: String

    /// A live view.
    public init(target: Target, sessionID: String, runID: String, rev: Int, chunks: [String], tail: String) {
        self.target = target
        self.sessionID = sessionID
        self.runID = runID
        self.rev = rev
        self.chunks = chunks
        self.tail = tail
    }
}

extension ChatLiveParams: WirePayload {
    /// Reads a live view; `target` and `runId` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.live")
        self.init(
            target: try Target(json: json["target"] ?? .null), sessionID: fields.optionalString("sessionId") ?? "", runID: try fields.string("runId"),
            rev: fields.optionalInt("rev") ?? 0, chunks: fields.strings("chunks"), tail: fields.optionalString("tail") ?? "")
    }

    /// The params.
    public var json: JSONValue {
        [
            "target": target.json, "sessionId": .string(sessionID), "runId": .string(runID), "rev": JSONValue(rev), "chunks": chunks.json,
            "tail": .string(tail),
        ]
    }
}
