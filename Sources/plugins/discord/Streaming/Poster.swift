import MessengerKit
import PiRelaySDK

/// Posts text and Replies as Discord messages: split to 2000 characters, buttons on the last
/// part, nobody pinged unless named (agent output may contain "@everyone").
struct Poster: Sendable {
    static let limit = 2000
    static let actionMenuPrefix = "pa:menu:"

    let rest: DiscordREST

    /// Posts `reply` in `channel` and returns the message ids. `nonceBase` makes it idempotent;
    /// `pace` is its place in the channel's send queue.
    @discardableResult
    func post(
        _ reply: Reply, channel: String, replyTo: String? = nil, nonceBase: String?, mention: String? = nil, pace: SendPace = .notice
    ) async throws -> [String] {
        let components = ComponentLayout.components(reply.actions.map { $0.map(ButtonSpec.init) }, menuPrefix: Self.actionMenuPrefix)
        var text = reply.text
        if let mention { text = "<@\(mention)> " + text }
        var parts = TextFit.split(text, limit: Self.limit)
        if parts.isEmpty {
            guard !components.isEmpty else { return [] }
            parts = [""]
        }
        var ids: [String] = []
        for (index, part) in parts.enumerated() {
            let last = index == parts.count - 1
            let body = Self.body(
                part, components: last ? components : [], replyTo: index == 0 ? replyTo : nil,
                mention: index == 0 ? mention : nil)
            ids.append(try await rest.createMessage(channel: channel, body: body, nonce: nonceBase.map { Nonce.make($0, index: index) }, pace: pace))
        }
        return ids
    }

    static func body(_ text: String, components: [JSONValue] = [], replyTo: String? = nil, mention: String? = nil) -> JSONValue {
        var body: JSONValue = ["allowed_mentions": allowedMentions(mention), "flags": JSONValue(suppressEmbeds)]
        if !text.isEmpty { body["content"] = .string(TextFit.clamp(text, to: limit)) }
        if !components.isEmpty { body["components"] = .array(components) }
        if let replyTo { body["message_reference"] = ["message_id": .string(replyTo), "fail_if_not_exists": false] }
        return body
    }

    /// SUPPRESS_EMBEDS (discord-api.md §3), on every message and edit: Discord's servers fetch
    /// a link to show its preview, with nobody clicking, and a link in model output can carry
    /// what the agent read (`https://x.example/?d=…`). Telegram's and Slack's posts turn their
    /// previews off too.
    static let suppressEmbeds = 1 << 2

    static func allowedMentions(_ user: String?) -> JSONValue {
        var mentions: JSONValue = ["parse": [], "replied_user": false]
        if let user { mentions["users"] = [.string(user)] }
        return mentions
    }
}
