extension PluginDiscovery {
    /// The plugin `name` as the daemon would find it: in the home's plugins folder, else the
    /// bundled one. For CLI commands that run a plugin themselves (`render`, `setup`).
    package static func installed(_ name: String, home: Home) -> String? {
        PluginDiscovery(directories: searchPath(home: home), disabled: []).scan().found.first { $0.name == name }?.path
    }
}
