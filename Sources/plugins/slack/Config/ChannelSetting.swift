/// A channel listed in `slack.channels`: the supervisor binds it to a session started in `cwd`
/// (named `name`), and the bot answers there.
struct ChannelSetting: Sendable, Equatable {
    var id: String
    var cwd: String?
    var name: String?
}
