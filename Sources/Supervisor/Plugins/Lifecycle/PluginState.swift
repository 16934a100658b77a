/// Where a plugin is in its life, as `pi-relayd plugins` shows it.
package enum PluginState: String, Sendable, Codable {
    /// Spawned; no hello yet.
    case starting
    /// Said hello; its welcome and what waited for it are on the way.
    case handshaking
    case running
    case backoff
    /// Crash loop or incompatible: not restarted until re-armed.
    case failed
    /// Exited 78: it needs configuration; not restarted.
    case notConfigured = "not-configured"
    /// Draining: asked to shut down, waiting for it to exit.
    case stopping
    case stopped
}
