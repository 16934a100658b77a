extension PluginDiscovery {
    /// The plugin `name` as the daemon would find it: in the home's plugins folder, else the
    /// bundled one. For CLI commands that run a plugin themselves (`render`, `setup`).
    static func installed(_ name: String, home: Home) -> String? {
        let dirs = [home.pluginsDir] + (bundledDirectory().map { [$0] } ?? [])
        return PluginDiscovery(directories: dirs, disabled: []).scan().found.first { $0.name == name }?.path
    }
}
