/// A group or supergroup listed in `telegram.chats`: the supervisor binds it to a session started
/// in `cwd` (named `name`), and the bot answers there.
struct ChatSetting: Sendable, Equatable {
    var id: String
    var cwd: String?
    var name: String?
}
