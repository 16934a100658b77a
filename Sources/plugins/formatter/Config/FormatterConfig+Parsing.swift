import PiRelaySDK

extension FormatterConfig {
    /// Reads the config section, rejecting wrong types and out-of-range numbers with a message
    /// that names the key. Unknown keys are ignored.
    init(json: JSONValue) throws(FormatterConfigError) {
        self.init()
        guard case .object(let section) = json else {
            if json.isNull { return }
            throw FormatterConfigError("the formatter section must be a mapping")
        }
        showThinking = try Self.bool(section, "showThinking") ?? showThinking
        maxChunks = try Self.int(section, "maxChunks", min: 0) ?? maxChunks
        maxToolLines = try Self.int(section, "maxToolLines", min: 1) ?? maxToolLines
        toolArgumentWidth = try Self.int(section, "toolArgumentWidth", min: 10) ?? toolArgumentWidth
        noticeWidth = try Self.int(section, "noticeWidth", min: 20) ?? noticeWidth
        previewLength = try Self.int(section, "previewLength", min: 100) ?? previewLength
        convertTables = try Self.bool(section, "convertTables") ?? convertTables
        toolsInFinal = try Self.bool(section, "toolsInFinal") ?? toolsInFinal
        defaultLimit = try Self.int(section, "defaultLimit", min: ChunkSplitter.minimumLimit) ?? defaultLimit
        verboseThinking = try Self.bool(section, "verboseThinking") ?? verboseThinking
        verboseOutputLines = try Self.int(section, "verboseOutputLines", min: 1) ?? verboseOutputLines
        switch section["redact"] {
        case nil, .null?: break
        case .string(let pattern)?: redact = [pattern]
        case .array(let patterns)?:
            redact = try patterns.map { (value: JSONValue) throws(FormatterConfigError) -> String in
                guard let pattern = value.stringValue else { throw FormatterConfigError("redact must be a list of strings") }
                return pattern
            }
        default: throw FormatterConfigError("redact must be a list of strings")
        }
        // Compile once now so a bad pattern stops the plugin at start-up, not at the first answer.
        do { _ = try Redactor(patterns: redact) } catch { throw FormatterConfigError(error.description) }
    }

    private static func bool(_ section: [String: JSONValue], _ key: String) throws(FormatterConfigError) -> Bool? {
        guard let value = section[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw FormatterConfigError("\(key) must be true or false") }
        return flag
    }

    private static func int(_ section: [String: JSONValue], _ key: String, min: Int) throws(FormatterConfigError) -> Int? {
        guard let value = section[key], !value.isNull else { return nil }
        guard let number = value.intValue, number >= min else { throw FormatterConfigError("\(key) must be an integer of at least \(min)") }
        return number
    }

    /// The effective settings, for `status`. The redact patterns are only counted: a pattern
    /// may well spell out the secret it is there to hide.
    var json: JSONValue {
        [
            "showThinking": .bool(showThinking), "maxChunks": JSONValue(maxChunks),
            "redactPatterns": JSONValue(redact.count), "maxToolLines": JSONValue(maxToolLines),
            "toolArgumentWidth": JSONValue(toolArgumentWidth), "noticeWidth": JSONValue(noticeWidth),
            "previewLength": JSONValue(previewLength), "convertTables": .bool(convertTables),
            "toolsInFinal": .bool(toolsInFinal), "defaultLimit": JSONValue(defaultLimit),
            "verboseThinking": .bool(verboseThinking), "verboseOutputLines": JSONValue(verboseOutputLines),
        ]
    }
}
