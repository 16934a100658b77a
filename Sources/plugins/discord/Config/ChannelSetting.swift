/// A guild channel this machine answers in (`discord.channels[]`). `cwd` and `name` are for the
/// supervisor, which binds the channel; the plugin needs the id to know where to listen.
struct ChannelSetting: Sendable, Equatable {
    var id: String
    var cwd: String?
    var name: String?
}
