/// The knobs of plugin supervision, taken from the `plugins:` and `logs:` config sections.
package struct PluginHostOptions: Sendable {
    package var handshakeTimeout: Duration = .seconds(10)
    package var pingInterval: Duration = .seconds(5)
    package var pingTimeout: Duration = .seconds(10)
    package var stalledInputLimit: Duration = .seconds(10)
    package var outboxLimit = 1000
    package var maxLineBytes = 8 << 20
    package var shutdownGrace: Duration = .milliseconds(3000)
    package var restart = RestartPolicy.Options()
    package var logMaxBytes = 10 << 20
    package var logKeep = 5
    package var disabled: Set<String> = []
}
