/// Gateway intent bits.
enum Intents {
    static let guilds = 1 << 0
    static let guildMessages = 1 << 9
    static let directMessages = 1 << 12
    /// Privileged: it must be switched on in the Developer Portal, else Discord closes with 4014.
    static let messageContent = 1 << 15

    /// What the relay needs: guild channels and threads, guild and DM messages, and their text.
    static let relay = guilds | guildMessages | directMessages | messageContent
}
