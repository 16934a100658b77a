import PiRelaySDK

extension Target {
    /// The target if its ids are Discord ids; a thread that is not one is dropped, so the post
    /// goes to the channel.
    var discord: Target? {
        guard DiscordConfig.isSnowflake(channel) else { return nil }
        return Target(channel: channel, thread: thread.flatMap { DiscordConfig.isSnowflake($0) ? $0 : nil })
    }
}
