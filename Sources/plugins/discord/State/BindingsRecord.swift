import DiscordPayloads

/// Threads and channels the supervisor bound to sessions (or the plugin created for them), kept
/// so a restarted plugin still listens there before the supervisor posts anything.
struct BindingsRecord: Codable, Sendable, Equatable {
    static let file = "bindings.json"

    var threads: [ThreadInfo] = []
    var channels: [String] = []
}
