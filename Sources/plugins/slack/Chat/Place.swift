import MessengerKit
import PiRelaySDK

/// Where a message goes in Slack: a conversation (`C…`, `G…` or `D…`) and maybe a thread, named
/// by its parent's `ts`. In the protocol's `Target` and `Chat` the thread is that `ts`.
struct Place: Sendable, Hashable, Codable, MessengerPlace {
    var channel: String
    var thread: String?

    var target: Target { Target(channel: channel, thread: thread) }
    /// A key per conversation, for lanes, live messages and reactions.
    var key: String { thread.map { channel + "/" + $0 } ?? channel }

    /// `channel` and, in a thread, `thread_ts`, for a Web API call.
    func args(_ more: JSONValue = [:]) -> JSONValue {
        var object = more
        object["channel"] = .string(channel)
        if let thread { object["thread_ts"] = .string(thread) }
        return object
    }
}

extension Place {
    /// Nil when the target names no conversation Slack could take.
    init?(_ target: Target) {
        guard SlackConfig.isChannelID(target.channel) else { return nil }
        self.init(channel: target.channel, thread: target.thread)
    }
}
