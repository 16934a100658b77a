import PiRelaySDK

extension FormatterConfig {
    /// The `formatter:` section as the hello declares it. The switches arrive as JSON booleans
    /// (YAML's `no` is a string to libyaml); the numbers are checked here, in `init(json:)`.
    static let schema = ConfigSchema(keys: [
        ConfigKey("showThinking", .bool), ConfigKey("maxChunks", .any), ConfigKey("maxToolLines", .any),
        ConfigKey("toolArgumentWidth", .any), ConfigKey("noticeWidth", .any), ConfigKey("previewLength", .any),
        ConfigKey("convertTables", .bool), ConfigKey("toolsInFinal", .bool), ConfigKey("defaultLimit", .any), ConfigKey("redact", .any),
        ConfigKey("verboseThinking", .bool), ConfigKey("verboseOutputLines", .any),
    ])
}
