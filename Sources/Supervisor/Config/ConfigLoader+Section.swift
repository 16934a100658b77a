import PiRelaySDK

extension ConfigLoader {
    /// A YAML file holding one plugin's section alone (`plugin check --config FILE`): as written,
    /// and as read, for the check against the plugin's schema. Errors name the file, line and column.
    package static func section(
        file path: String, plugin: String, home: String?, fileSystem: ConfigFileSystem = .live
    ) throws(ConfigError) -> (written: JSONValue, source: PluginSectionSource?) {
        guard let file = try fileSystem.readFile(path) else { throw ConfigError(.unreadable, file: path, "\(path): no such file") }
        let node = try parseYAML(file)
        guard let node, !node.isNull else { return ([:], nil) }
        guard case .object = node.jsonValue else {
            throw ConfigError(.invalidValue, file: path, at: node.mark, "must be a mapping: the keys of one plugin's section")
        }
        return (node.jsonValue, PluginSectionSource(field: ConfigField(node: node, path: plugin, file: path), home: home))
    }
}
