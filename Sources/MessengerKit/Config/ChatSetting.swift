/// A chat, channel or group a messenger's section lists (`telegram.chats[]`, `slack.channels[]`,
/// `discord.channels[]`): the supervisor binds it to a session started in `cwd` (named `name`),
/// and the bot answers there.
public struct ChatSetting: Sendable, Equatable {
    public var id: String
    public var cwd: String?
    public var name: String?

    public init(id: String, cwd: String? = nil, name: String? = nil) {
        self.id = id
        self.cwd = cwd
        self.name = name
    }
}
