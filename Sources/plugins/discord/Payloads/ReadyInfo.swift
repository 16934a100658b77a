import PiRelaySDK

/// What READY tells: the session to resume later, the bot's own user id and the application id.
package struct ReadyInfo: Sendable, Equatable {
    package var sessionID: String
    package var resumeURL: String
    package var botUserID: String
    package var botName: String
    package var applicationID: String
    package var guildIDs: [String]

    package init?(_ payload: JSONValue) {
        guard let session = payload["session_id"]?.stringValue, let user = payload["user"]?["id"]?.stringValue else { return nil }
        sessionID = session
        resumeURL = payload["resume_gateway_url"]?.stringValue ?? ""
        botUserID = user
        botName = payload["user"]?["username"]?.stringValue ?? ""
        // The application id equals the bot's user id for bots made in the Developer Portal.
        applicationID = payload["application"]?["id"]?.stringValue ?? user
        guildIDs = (payload["guilds"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }
}
