/// What a restarted plugin needs to RESUME instead of identifying: Discord then replays the
/// events it missed while it was down. Saved after READY and after every dispatch.
struct ResumeState: Codable, Sendable, Equatable {
    static let file = "gateway.json"

    var sessionID: String
    var resumeURL: String
    var sequence: Int
    var botUserID: String
    var applicationID: String
    /// Seconds since 1970 of the last save: a session older than Discord keeps it is not tried.
    var savedAt: Double
}
