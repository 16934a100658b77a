import PiRelaySDK

/// Where the supervisor wants something posted: `{channel, thread?}`.
struct Target: Sendable, Equatable {
    var channel: String
    var thread: String?

    var postChannel: String { thread ?? channel }

    init(channel: String, thread: String?) {
        self.channel = channel
        self.thread = thread
    }

    init?(_ json: JSONValue?) {
        guard let channel = json?["channel"]?.stringValue, DiscordConfig.isSnowflake(channel) else { return nil }
        self.channel = channel
        let thread = json?["thread"]?.stringValue
        self.thread = thread.flatMap { DiscordConfig.isSnowflake($0) ? $0 : nil }
    }
}
