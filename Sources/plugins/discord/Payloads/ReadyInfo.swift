import PiRelaySDK

/// What READY tells: the session to resume later, the bot's own user id and the application id.
package struct ReadyInfo: Sendable, Equatable {
    package var sessionID: String
    package var resumeURL: String
    package var botUserID: String
    package var botName: String
    package var applicationID: String
    package var guildIDs: [String]

    package init?(_ d: JSONValue) {
        guard let session = d["session_id"]?.stringValue, let user = d["user"]?["id"]?.stringValue else { return nil }
        sessionID = session
        resumeURL = d["resume_gateway_url"]?.stringValue ?? ""
        botUserID = user
        botName = d["user"]?["username"]?.stringValue ?? ""
        // The application id equals the bot's user id for bots made in the Developer Portal.
        applicationID = d["application"]?["id"]?.stringValue ?? user
        guildIDs = (d["guilds"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }
}
