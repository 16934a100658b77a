import PiRelaySDK

/// One Discord REST route the plugin uses: the concrete path plus what rate limiting needs
/// (template, major parameter, whether the global limit applies) and whether a retry is safe.
struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    var method: String
    var path: String
    /// The path with placeholders: the route part of the rate-limit key and what logs show (so
    /// an interaction token in the path never reaches a log).
    var template: String
    var major: String
    var countsGlobally = true
    /// Sending it twice has no extra effect (PATCH, PUT, DELETE, GET, creates with an enforced
    /// nonce, typing): a 5xx or a dropped connection may be retried.
    var idempotent: Bool

    var description: String { "\(method) \(template)" }
    var routeKey: RouteKey { RouteKey(route: "\(method) \(template)", major: major) }

    static let gatewayBot = Endpoint(method: "GET", path: "/gateway/bot", template: "/gateway/bot", major: "", idempotent: true)
    /// The bot's own user.
    static let currentUser = Endpoint(method: "GET", path: "/users/@me", template: "/users/@me", major: "", idempotent: true)
    /// The application the bot belongs to: its id and flags (the privileged intents switched on).
    static let currentApplication = Endpoint(
        method: "GET", path: "/applications/@me", template: "/applications/@me", major: "", idempotent: true)

    static func createMessage(channel: String, enforcedNonce: Bool) -> Endpoint {
        Endpoint(
            method: "POST", path: "/channels/\(channel)/messages", template: "/channels/{channel_id}/messages",
            major: channel, idempotent: enforcedNonce)
    }

    static func editMessage(channel: String, message: String) -> Endpoint {
        Endpoint(
            method: "PATCH", path: "/channels/\(channel)/messages/\(message)",
            template: "/channels/{channel_id}/messages/{message_id}", major: channel, idempotent: true)
    }

    static func deleteMessage(channel: String, message: String) -> Endpoint {
        Endpoint(
            method: "DELETE", path: "/channels/\(channel)/messages/\(message)",
            template: "/channels/{channel_id}/messages/{message_id}", major: channel, idempotent: true)
    }

    /// The bot's own reaction on a message: PUT adds it, DELETE takes it off.
    static func ownReaction(_ method: String, channel: String, message: String, emoji: String) -> Endpoint {
        let encoded = emoji.utf8.map { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
        return Endpoint(
            method: method, path: "/channels/\(channel)/messages/\(message)/reactions/\(encoded)/@me",
            template: "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", major: channel, idempotent: true)
    }

    static func typing(channel: String) -> Endpoint {
        Endpoint(
            method: "POST", path: "/channels/\(channel)/typing", template: "/channels/{channel_id}/typing",
            major: channel, idempotent: true)
    }

    static func createThread(channel: String) -> Endpoint {
        Endpoint(
            method: "POST", path: "/channels/\(channel)/threads", template: "/channels/{channel_id}/threads",
            major: channel, idempotent: false)
    }

    static func globalCommands(application: String) -> Endpoint {
        Endpoint(
            method: "PUT", path: "/applications/\(application)/commands",
            template: "/applications/{application_id}/commands", major: "", idempotent: true)
    }

    /// The guilds the bot is in, each with its permissions there.
    static var myGuilds: Endpoint {
        Endpoint(method: "GET", path: "/users/@me/guilds", template: "/users/@me/guilds", major: "", idempotent: true)
    }

    /// The registered global commands (GET).
    static func listGlobalCommands(application: String) -> Endpoint {
        Endpoint(
            method: "GET", path: "/applications/\(application)/commands", template: "/applications/{application_id}/commands", major: "",
            idempotent: true)
    }

    /// The commands registered in one guild (GET).
    static func listGuildCommands(application: String, guild: String) -> Endpoint {
        Endpoint(
            method: "GET", path: "/applications/\(application)/guilds/\(guild)/commands",
            template: "/applications/{application_id}/guilds/{guild_id}/commands", major: guild, idempotent: true)
    }

    static func guildCommands(application: String, guild: String) -> Endpoint {
        Endpoint(
            method: "PUT", path: "/applications/\(application)/guilds/\(guild)/commands",
            template: "/applications/{application_id}/guilds/{guild_id}/commands", major: guild, idempotent: true)
    }

    /// Exempt from the global limit; a repeat is answered 40060, which the caller treats as done.
    static func interactionCallback(interaction: String, token: String) -> Endpoint {
        Endpoint(
            method: "POST", path: "/interactions/\(interaction)/\(token)/callback",
            template: "/interactions/{interaction_id}/{interaction_token}/callback",
            major: interaction, countsGlobally: false, idempotent: true)
    }

    static func editOriginal(application: String, token: String) -> Endpoint {
        Endpoint(
            method: "PATCH", path: "/webhooks/\(application)/\(token)/messages/@original",
            template: "/webhooks/{application_id}/{interaction_token}/messages/@original",
            major: webhookMajor(application, token), idempotent: true)
    }

    /// A further message of an interaction's answer (its text did not fit one).
    static func followUp(application: String, token: String) -> Endpoint {
        Endpoint(
            method: "POST", path: "/webhooks/\(application)/\(token)",
            template: "/webhooks/{application_id}/{interaction_token}",
            major: webhookMajor(application, token), idempotent: false)
    }

    static func deleteOriginal(application: String, token: String) -> Endpoint {
        Endpoint(
            method: "DELETE", path: "/webhooks/\(application)/\(token)/messages/@original",
            template: "/webhooks/{application_id}/{interaction_token}/messages/@original",
            major: webhookMajor(application, token), idempotent: true)
    }

    /// Rate limits count per webhook id and token; a digest keeps the token itself out of the key.
    private static func webhookMajor(_ application: String, _ token: String) -> String {
        "\(application):\(Digest.hex64(token))"
    }
}
