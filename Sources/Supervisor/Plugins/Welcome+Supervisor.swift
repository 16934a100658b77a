import PiRelaySDK

/// Every welcome pi-relayd sends is made here: the daemon's, and the one for a plugin run alone.
extension Welcome {
    /// The daemon's welcome: the plugin's own state folder under `home`, the shared spool, and
    /// what the plugin needs to pick up where it was (sessions, its chats' bindings, its paired users),
    /// and where `/new` starts a session that names no folder.
    package static func daemon(
        plugin: String, config: JSONValue, home: Home, sessions: [SessionSummary], bindings: [BindingSummary], allowedUsers: [String],
        newSessionFolder: String?, ingress: IngressChange? = nil
    ) -> Welcome {
        Welcome(
            plugin: plugin, config: config, stateDir: home.pluginStateDir(plugin), spoolDir: home.spoolDir, home: home.root,
            sessions: sessions, bindings: bindings, allowedUsers: allowedUsers, newSessionFolder: newSessionFolder, ingress: ingress)
    }

    /// A plugin run outside the daemon (`plugin check`, `setup` asking who the bot is): every
    /// folder it is given is `folder`, so it touches nothing of the daemon's.
    package static func alone(
        plugin: String, config: JSONValue, folder: String, sessions: [SessionSummary] = [], bindings: [BindingSummary] = [],
        allowedUsers: [String] = [], checkOnly: Bool
    ) -> Welcome {
        Welcome(
            plugin: plugin, config: config, stateDir: folder, spoolDir: folder, home: folder, sessions: sessions, bindings: bindings,
            allowedUsers: allowedUsers, checkOnly: checkOnly)
    }
}
