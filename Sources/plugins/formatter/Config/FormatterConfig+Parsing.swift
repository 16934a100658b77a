import PiRelaySDK

extension FormatterConfig {
    /// Reads the config section, rejecting wrong types and out-of-range numbers with a message
    /// that names the key. Unknown keys are ignored.
    init(json: JSONValue) throws(FormatterConfigError) {
        self.init()
        guard case .object(let o) = json else {
            if json.isNull { return }
            throw FormatterConfigError("the formatter section must be a mapping")
        }
        showThinking = try Self.bool(o, "showThinking") ?? showThinking
        maxChunks = try Self.int(o, "maxChunks", min: 0) ?? maxChunks
        maxToolLines = try Self.int(o, "maxToolLines", min: 1) ?? maxToolLines
        toolArgumentWidth = try Self.int(o, "toolArgumentWidth", min: 10) ?? toolArgumentWidth
        noticeWidth = try Self.int(o, "noticeWidth", min: 20) ?? noticeWidth
        previewLength = try Self.int(o, "previewLength", min: 100) ?? previewLength
        convertTables = try Self.bool(o, "convertTables") ?? convertTables
        toolsInFinal = try Self.bool(o, "toolsInFinal") ?? toolsInFinal
        defaultLimit = try Self.int(o, "defaultLimit", min: ChunkSplitter.minimumLimit) ?? defaultLimit
        switch o["redact"] {
        case nil, .null?: break
        case .string(let s)?: redact = [s]
        case .array(let a)?:
            redact = try a.map { (v: JSONValue) throws(FormatterConfigError) -> String in
                guard let s = v.stringValue else { throw FormatterConfigError("redact must be a list of strings") }
                return s
            }
        default: throw FormatterConfigError("redact must be a list of strings")
        }
        // Compile once now so a bad pattern stops the plugin at start-up, not at the first answer.
        do { _ = try Redactor(patterns: redact) } catch { throw FormatterConfigError(error.description) }
    }

    private static func bool(_ o: [String: JSONValue], _ key: String) throws(FormatterConfigError) -> Bool? {
        guard let v = o[key], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw FormatterConfigError("\(key) must be true or false") }
        return b
    }

    private static func int(_ o: [String: JSONValue], _ key: String, min: Int) throws(FormatterConfigError) -> Int? {
        guard let v = o[key], !v.isNull else { return nil }
        guard let n = v.intValue, n >= min else { throw FormatterConfigError("\(key) must be an integer of at least \(min)") }
        return n
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
        ]
    }
}
