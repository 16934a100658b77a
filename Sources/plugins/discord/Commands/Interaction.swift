import PiRelaySDK

/// An INTERACTION_CREATE: a slash command (type 2) or a component click (type 3).
package struct Interaction: Sendable, Equatable {
    var id: String
    var token: String
    var applicationID: String
    var type: Int
    var guildID: String?
    var channelID: String
    /// Set when the interaction happened in a thread.
    var parentChannelID: String?
    var channelType: Int?
    var userID: String
    var userName: String
    /// Command name (type 2).
    var commandName: String?
    /// Command options by name (type 2), flattened to strings.
    var options: [String: String]
    /// Component id and selected values (type 3).
    var customID: String?
    var values: [String]
    /// The message a clicked component is on.
    var messageID: String?

    var isDM: Bool { guildID == nil }
    var isThread: Bool { [10, 11, 12].contains(channelType ?? -1) }

    package init?(_ d: JSONValue) {
        guard let id = d["id"]?.stringValue, let token = d["token"]?.stringValue,
            let type = d["type"]?.intValue, let channel = d["channel_id"]?.stringValue ?? d["channel"]?["id"]?.stringValue,
            let user = d["member"]?["user"] ?? d["user"], let userID = user["id"]?.stringValue
        else { return nil }
        self.id = id
        self.token = token
        applicationID = d["application_id"]?.stringValue ?? ""
        self.type = type
        guildID = d["guild_id"]?.stringValue
        channelID = channel
        channelType = d["channel"]?["type"]?.intValue
        let parent = d["channel"]?["parent_id"]?.stringValue
        parentChannelID = [10, 11, 12].contains(channelType ?? -1) ? parent : nil
        self.userID = userID
        userName = user["global_name"]?.stringValue ?? user["username"]?.stringValue ?? userID
        let data = d["data"] ?? .null
        commandName = type == 2 ? data["name"]?.stringValue : nil
        var options: [String: String] = [:]
        for option in data["options"]?.arrayValue ?? [] {
            guard let name = option["name"]?.stringValue, let value = option["value"] else { continue }
            switch value {
            case .string(let s): options[name] = s
            // Int(exactly:): a whole number too large for Int (`1e20`) would trap in Int(_:).
            case .number(let n): options[name] = Int(exactly: n).map { String($0) } ?? String(n)
            case .bool(let b): options[name] = b ? "true" : "false"
            default: continue
            }
        }
        self.options = options
        customID = type == 3 ? data["custom_id"]?.stringValue : nil
        values = (data["values"]?.arrayValue ?? []).compactMap(\.stringValue)
        messageID = d["message"]?["id"]?.stringValue
    }
}
