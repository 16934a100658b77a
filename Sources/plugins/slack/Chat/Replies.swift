import Logging
import PiRelaySDK

/// How a supervisor reply (to a message, a `/pi` command or a click) shows in Slack.
struct Replies: Sendable {
    let poster: Poster
    let threads: Threads
    let logger: Logger

    /// A supervisor reply: ephemeral in a channel when it asks to be, else a message in the
    /// conversation, with its buttons; in a new session's thread when it asks for one.
    func show(_ reply: Reply, to asked: Chat) async {
        var chat = asked
        // A new session's thread first, so that the reply (`Started …`) is its first message.
        if let open = reply.openThread { chat = await threads.open(open, from: chat) }
        let place = Place(channel: chat.channel, thread: chat.thread)
        if !reply.isEmpty {
            let chunks = SlackText.chunks(reply.text.isEmpty ? "…" : reply.text)
            var inDM = false
            for (index, chunk) in chunks.enumerated() {
                let blocks = index == 0 ? Blocks.reply(chunk, actions: reply.actions) : nil
                do {
                    if inDM {
                        try await poster.direct(chunk, to: chat.user, blocks: blocks)
                    } else if reply.ephemeral && !chat.dm {
                        try await poster.ephemeral(chunk, to: chat.user, in: place, blocks: blocks)
                    } else {
                        try await poster.send(chunk, to: place, blocks: blocks)
                    }
                } catch let error as SlackAPIError where Self.notMember(error) && !chat.dm && !inDM {
                    // `/pi` works in any channel, but a bot posts only where it was invited
                    // (slack-api.md §1, §9; a private channel says `channel_not_found`): the
                    // answer goes to the user's DM, with how to let the bot in.
                    inDM = true
                    await answerInDM(chunk, blocks: blocks, to: chat.user, for: chat.channel)
                } catch {
                    logger.warning("answering in \(place.key): \(error)")
                }
            }
        }
    }

    /// A channel the bot is not in: a public one says so, a private one is not found to it.
    static func notMember(_ error: SlackAPIError) -> Bool {
        ["not_in_channel", "channel_not_found"].contains(error.error)
    }

    private func answerInDM(_ chunk: String, blocks: JSONValue?, to user: String, for channel: String) async {
        do {
            try await poster.direct(Poster.notInvited(to: channel), to: user)
            try await poster.direct(chunk, to: user, blocks: blocks)
        } catch {
            logger.warning("answering \(user) in a DM (the bot is not in \(channel)): \(error)")
        }
    }

}
