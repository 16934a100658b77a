import DiscordPayloads

/// Threads and channels the supervisor bound to sessions (or the plugin created for them), kept
/// so a restarted plugin still listens there before the supervisor posts anything; and threads
/// learned under the channels it listens in, since a resumed gateway session sends no
/// GUILD_CREATE to list them again (discord-api.md §2.6).
struct BindingsRecord: Codable, Sendable, Equatable {
    static let file = "bindings.json"

    var threads: [ThreadInfo] = []
    var channels: [String] = []
    /// Absent in files written before they were kept.
    var learned: [ThreadInfo]?
}
