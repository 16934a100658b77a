import PiRelaySDK

/// The bot's own DM with each user, asked of Slack once (`conversations.open`). `/pi` works in
/// any conversation, a DM between two people included, and Slack gives that DM's `D…` id as the
/// command's channel (slack-api.md §4 slash_commands); the bot has no access there (§9
/// `channel_not_found`). A command from such a DM is taken as typed in the bot's own DM with the
/// user: its answers, and a session `/pi new` binds, go where the bot may post.
actor BotDMs {
    private let poster: Poster
    private var own: [String: String] = [:]

    init(poster: Poster) {
        self.poster = poster
    }

    /// `chat` where the bot may answer: a command's DM that is not the bot's own becomes the
    /// bot's DM with its user (`moved`). Anything else, or when Slack cannot say, is as it was.
    func answerable(_ chat: Chat, command: Bool) async -> (chat: Chat, moved: Bool) {
        guard command, chat.dm, let mine = await ownDM(with: chat.user), mine != chat.channel else { return (chat, false) }
        var moved = chat
        moved.channel = mine
        moved.thread = nil
        return (moved, true)
    }

    private func ownDM(with user: String) async -> String? {
        if let known = own[user] { return known }
        guard let channel = try? await poster.dm(with: user) else { return nil }
        own[user] = channel
        return channel
    }

    /// What a user who typed `/pi` in a DM the bot is not in reads in the bot's DM.
    static let movedNote = "I cannot post in the conversation you typed `/pi` in, so I answer here."
}
