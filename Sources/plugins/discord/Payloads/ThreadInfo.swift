import PiRelaySDK

/// A thread and the channel it belongs to: a message in a thread names only the thread, while
/// the supervisor's chat object wants the parent channel too.
package struct ThreadInfo: Sendable, Equatable, Codable {
    package var id: String
    package var parentID: String
    package var guildID: String?

    package init(id: String, parentID: String, guildID: String?) {
        self.id = id
        self.parentID = parentID
        self.guildID = guildID
    }

    package init?(_ payload: JSONValue) {
        guard let id = payload["id"]?.stringValue, let parent = payload["parent_id"]?.stringValue,
            let type = payload["type"]?.intValue, [10, 11, 12].contains(type)
        else { return nil }
        self.init(id: id, parentID: parent, guildID: payload["guild_id"]?.stringValue)
    }
}
