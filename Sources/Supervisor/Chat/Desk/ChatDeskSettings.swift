/// What the chat desk is set up with and never changes: where the daemon keeps its files, where
/// `/new` starts a session that names no directory, and the `chat:` section of config.yaml.
package struct ChatDeskSettings: Sendable {
    package var home: Home
    /// `sessions.defaultCwd`, else `$HOME`; nil for neither.
    package var newSessionFolder: String?
    /// `chat:` in config.yaml (`senderPrefix`, the default progress mode).
    package var chat: ChatSettings
}
