/// The knobs of plugin supervision, taken from the `plugins:` and `logs:` config sections.
struct PluginHostOptions: Sendable {
    var handshakeTimeout: Duration = .seconds(10)
    var pingInterval: Duration = .seconds(5)
    var pingTimeout: Duration = .seconds(10)
    var stalledInputLimit: Duration = .seconds(10)
    var outboxLimit = 1000
    var maxLineBytes = 8 << 20
    var shutdownGrace: Duration = .milliseconds(3000)
    var restart = RestartPolicy.Options()
    var logMaxBytes = 10 << 20
    var logKeep = 5
    var disabled: Set<String> = []
}
