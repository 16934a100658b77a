/// The Discord messages showing one run, as released plugins kept them in `runs.json` (keyed
/// `RUN@CHANNEL`) before the kit's `LiveMessages` took over: read once, by `RunsFile`.
struct RunRecord: Codable, Sendable, Equatable {
    var channel: String
    /// Message ids in order: message i shows chunk i, the last one may show the live tail.
    var messageIDs: [String]
    /// Fingerprints of what each message showed (the text itself was not kept).
    var fingerprints: [String]
    var finished: Bool
    var updatedAt: Double
}
