import PiRelaySDK

extension ConfigSchema {
    /// The section checked against the schema: what the plugin gets (the section as written, each
    /// declared key replaced by its checked value), or the first mistake with its line and column.
    /// Unknown keys go to `warnings`; secret-named ones are reported by `secretLiterals`.
    package func check(_ field: ConfigField, home: String?, warnings: inout [String]) throws(ConfigError) -> JSONValue {
        let section = try field.section()
        var json = field.node.jsonValue
        for key in keys {
            guard let value = section.field(key.name) else { continue }
            json[key.name] = try key.type.check(value, home: home, warnings: &warnings)
        }
        warnings.append(contentsOf: section.unknownKeyWarnings(skipping: YAMLNode.isSecretKey))
        return json
    }
}
