/// `plugins:` — which plugins run and how the supervisor watches them. The timing defaults are the
/// ones docs/PROTOCOL.md promises to plugin authors.
package struct PluginSettings: Sendable, Equatable {
    /// `plugins.disabled`: plugin names (their file names) not to start.
    package var disabled: [String] = []
    /// `plugins.handshakeTimeoutSeconds`: time allowed for a plugin's `hello`.
    package var handshakeTimeout: Duration = .seconds(10)
    /// `plugins.pingIntervalSeconds`
    package var pingInterval: Duration = .seconds(5)
    /// `plugins.pingTimeoutSeconds`: a plugin that has not answered a ping this long is restarted.
    package var pingTimeout: Duration = .seconds(10)
    /// `plugins.outboxLimit`: acknowledged deliveries kept per plugin while it is down.
    package var outboxLimit = 1000
    /// `plugins.maxLineBytes`: the longest protocol line accepted from a plugin.
    package var maxLineBytes = 8_388_608
    /// `plugins.restart`
    package var restart = RestartSettings()
    /// `plugins.shutdownGraceMs`: time a plugin gets to exit after `shutdown` before it is killed.
    package var shutdownGrace: Duration = .milliseconds(3000)
}
