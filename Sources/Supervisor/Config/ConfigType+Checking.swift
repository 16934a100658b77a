import PiRelaySDK

extension ConfigType {
    /// One value checked: its JSON as the plugin gets it, or an error naming its path and place.
    package func check(_ field: ConfigField, home: String?, warnings: inout [String]) throws(ConfigError) -> JSONValue {
        switch self {
        case .bool: return .bool(try field.bool())
        case .integer(let range): return JSONValue(try field.integer(in: range ?? Int.min...Int.max))
        case .string(let nonEmpty): return .string(nonEmpty ? try field.nonEmptyString() : try field.string())
        case .choice(let words): return .string(try field.word(in: words))
        case .url(let url): return .string(try Self.url(field, url))
        case .secret: return .string(try field.environmentName())
        case .path: return .string(try field.absolutePath(home: home))
        case .id(let id): return .string(try field.id(id))
        case .list(let item, let what):
            var values: [JSONValue] = []
            for element in try field.list(what) { values.append(try item.check(element, home: home, warnings: &warnings)) }
            return .array(values)
        case .allOrList(let item, let what):
            if case .string("all") = field.node.scalarValue { return "all" }
            guard field.node.items != nil else { throw field.mismatch("all, or \(what)") }
            return try ConfigType.list(item, what: what).check(field, home: home, warnings: &warnings)
        case .entries(let entries): return try Self.entries(field, entries, home: home, warnings: &warnings)
        case .any: return field.node.jsonValue
        }
    }

    /// A URL: its scheme among those declared. The message names them, never the value, which
    /// may carry a password.
    private static func url(_ field: ConfigField, _ url: ConfigURL) throws(ConfigError) -> String {
        let text = url.emptyMeansNone ? try field.string(url.what) : try field.nonEmptyString(url.what)
        if text.isEmpty || url.schemes.isEmpty || url.schemes.contains(where: { text.lowercased().hasPrefix($0) }) { return text }
        if url.schemes == ["http://", "https://"], !url.emptyMeansNone, url.note == nil {
            throw field.error("must be an http:// or https:// URL")
        }
        var message = "must be \(url.what) starting with one of: \(url.schemes.joined(separator: ", "))"
        if url.emptyMeansNone { message += ", or \"\" for none" }
        if let note = url.note { message += " (\(note))" }
        throw field.error(message)
    }

    /// A list of maps, each with its key, checked like a section; a repeated key is refused when
    /// the entries say so.
    private static func entries(
        _ field: ConfigField, _ entries: ConfigEntries, home: String?, warnings: inout [String]
    ) throws(ConfigError) -> JSONValue {
        var values: [JSONValue] = []
        var firstIndex: [String: Int] = [:]
        for (index, item) in try field.list(entries.what).enumerated() {
            let section = try item.section()
            guard let keyField = section.field(entries.key) else { throw item.error("needs an \(entries.key) (\(entries.keyHint))") }
            var entry = item.node.jsonValue
            for key in entries.keys {
                guard let value = key.name == entries.key ? keyField : section.field(key.name) else { continue }
                entry[key.name] = try key.type.check(value, home: home, warnings: &warnings)
            }
            if let noun = entries.uniqueNoun, let identity = entry[entries.key]?.stringValue {
                if let first = firstIndex[identity] { throw keyField.error("is the same \(noun) as \(field.path)[\(first)]") }
                firstIndex[identity] = index
            }
            values.append(entry)
            warnings.append(contentsOf: section.unknownKeyWarnings())
        }
        return .array(values)
    }
}
