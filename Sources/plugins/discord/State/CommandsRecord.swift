/// The last successful slash command registration, so a plugin restarting in a loop does not
/// overwrite the same commands again and again (Discord limits command creates per day).
struct CommandsRecord: Codable, Sendable, Equatable {
    static let file = "commands.json"

    var fingerprint: String
    var registeredAt: Double
}
