/// Where a plugin is in its life, as `pi-relayd plugins` shows it.
enum PluginState: String, Sendable, Codable {
    case starting
    case running
    case backoff
    /// Crash loop or incompatible: not restarted until re-armed.
    case failed
    /// Exited 78: it needs configuration; not restarted.
    case notConfigured = "not-configured"
    case stopping
    case stopped
}
