import DiscordPayloads
import PiRelaySDK

extension Chat {
    /// The messenger id this plugin is installed under by default; the supervisor puts the real one.
    static let discord = "discord"

    /// Where answers go: the thread when there is one.
    var postChannel: String { thread ?? channel }

    /// Where the interaction happened; `parent` is known for interactions in threads.
    init(_ interaction: Interaction) {
        let inThread = interaction.parentChannelID != nil
        self.init(
            messenger: Self.discord, channel: interaction.parentChannelID ?? interaction.channelID,
            thread: inThread ? interaction.channelID : nil, guild: interaction.guildID, user: interaction.userID,
            userName: interaction.userName, dm: interaction.isDM, mentioned: false)
    }
}
