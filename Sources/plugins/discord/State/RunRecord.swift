/// The Discord messages showing one run, so a restarted plugin edits them instead of posting
/// the run again, and a final turns the live message into its first chunk.
struct RunRecord: Codable, Sendable, Equatable {
    var channel: String
    /// Message ids in order: message i shows chunk i, the last one may show the live tail.
    var messageIDs: [String]
    /// Fingerprints of what each message shows, to skip edits that change nothing.
    var fingerprints: [String]
    var finished: Bool
    var updatedAt: Double
}
