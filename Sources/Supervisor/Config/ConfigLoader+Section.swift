import PiRelaySDK

extension ConfigLoader {
    /// A YAML file holding one plugin's section alone (`plugin check --config FILE`), as the
    /// plugin's welcome carries it. Errors name the file, line and column.
    static func section(file path: String, fileSystem: ConfigFileSystem = .live) throws(ConfigError) -> JSONValue {
        guard let file = try fileSystem.readFile(path) else { throw ConfigError(.unreadable, file: path, "\(path): no such file") }
        let node = try parseYAML(file)
        guard let node, !node.isNull else { return [:] }
        guard case .object = node.jsonValue else {
            throw ConfigError(.invalidValue, file: path, at: node.mark, "must be a mapping: the keys of one plugin's section")
        }
        return node.jsonValue
    }
}
