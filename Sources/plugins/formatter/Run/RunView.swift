/// The supervisor's compact record of one agent run (docs/PROTOCOL.md §6).
struct RunView: Sendable {
    var sessionID: String?
    var sessionName: String?
    var runID: String?
    var done: Bool
    var items: [RunItem]
    /// `stop`, `length`, `toolUse`, `error` or `aborted`, once known.
    var stopReason: String?
    var errorMessage: String?
}
