import PiRelaySDK

/// An INTERACTION_CREATE: a slash command (type 2) or a component click (type 3).
package struct Interaction: Sendable, Equatable {
    package var id: String
    package var token: String
    package var applicationID: String
    package var type: Int
    package var guildID: String?
    package var channelID: String
    /// Set when the interaction happened in a thread.
    package var parentChannelID: String?
    package var channelType: Int?
    package var userID: String
    package var userName: String
    /// Command name (type 2).
    package var commandName: String?
    /// Command options by name (type 2), flattened to strings.
    package var options: [String: String]
    /// Component id and selected values (type 3).
    package var customID: String?
    package var values: [String]
    /// The message a clicked component is on.
    package var messageID: String?

    package var isDM: Bool { guildID == nil }
    package var isThread: Bool { [10, 11, 12].contains(channelType ?? -1) }

    package init?(_ payload: JSONValue) {
        guard let id = payload["id"]?.stringValue, let token = payload["token"]?.stringValue,
            let type = payload["type"]?.intValue, let channel = payload["channel_id"]?.stringValue ?? payload["channel"]?["id"]?.stringValue,
            let user = payload["member"]?["user"] ?? payload["user"], let userID = user["id"]?.stringValue
        else { return nil }
        self.id = id
        self.token = token
        applicationID = payload["application_id"]?.stringValue ?? ""
        self.type = type
        guildID = payload["guild_id"]?.stringValue
        channelID = channel
        channelType = payload["channel"]?["type"]?.intValue
        let parent = payload["channel"]?["parent_id"]?.stringValue
        parentChannelID = [10, 11, 12].contains(channelType ?? -1) ? parent : nil
        self.userID = userID
        userName = user["global_name"]?.stringValue ?? user["username"]?.stringValue ?? userID
        let data = payload["data"] ?? .null
        commandName = type == 2 ? data["name"]?.stringValue : nil
        var options: [String: String] = [:]
        for option in data["options"]?.arrayValue ?? [] {
            guard let name = option["name"]?.stringValue, let value = option["value"] else { continue }
            switch value {
            case .string(let text): options[name] = text
            // Int(exactly:): a whole number too large for Int (`1e20`) would trap in Int(_:).
            case .number(let number): options[name] = Int(exactly: number).map { String($0) } ?? String(number)
            case .bool(let flag): options[name] = flag ? "true" : "false"
            default: continue
            }
        }
        self.options = options
        customID = type == 3 ? data["custom_id"]?.stringValue : nil
        values = (data["values"]?.arrayValue ?? []).compactMap(\.stringValue)
        messageID = payload["message"]?["id"]?.stringValue
    }
}
