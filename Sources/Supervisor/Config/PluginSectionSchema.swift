import PiRelaySDK

/// What the daemon knows of a bundled plugin's config section (the discord section has its own
/// typed settings): its keys, so a typo warns with the nearest one, and which keys are switches.
/// Switches are normalised here, once, to JSON booleans: YAML's `no`, `off`, `yes` and `on` are
/// strings to libyaml, and a plugin that reads a boolean would refuse them.
struct PluginSectionSchema: Sendable {
    var keys: [String]
    var switches: Set<String> = []

    static let bundled: [String: PluginSectionSchema] = [
        "formatter": PluginSectionSchema(
            keys: [
                "showThinking", "maxChunks", "maxToolLines", "toolArgumentWidth", "noticeWidth", "previewLength",
                "convertTables", "toolsInFinal", "defaultLimit", "redact",
            ],
            switches: ["showThinking", "convertTables", "toolsInFinal"]),
        "attachments": PluginSectionSchema(
            keys: ["textInlineMaxBytes", "imageMaxBytes", "downloadMaxBytes", "timeoutSeconds", "maxRedirects", "proxy"]),
    ]

    /// The section as the plugin gets it, switches as booleans; unknown keys go to `warnings`.
    func normalised(_ field: ConfigField, warnings: inout [String]) throws(ConfigError) -> JSONValue {
        let section = try field.section()
        var json = field.node.jsonValue
        for key in keys {
            guard let value = section.field(key), switches.contains(key) else { continue }
            json[key] = .bool(try value.bool())
        }
        warnings.append(contentsOf: section.unknownKeyWarnings(skipping: YAMLNode.isSecretKey))
        return json
    }
}
