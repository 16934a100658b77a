/// The supervisor's compact record of one agent run (docs/PROTOCOL.md §6).
struct RunView: Sendable {
    var sessionId: String?
    var sessionName: String?
    var runId: String?
    var done: Bool
    var items: [RunItem]
    /// `stop`, `length`, `toolUse`, `error` or `aborted`, once known.
    var stopReason: String?
    var errorMessage: String?
}
