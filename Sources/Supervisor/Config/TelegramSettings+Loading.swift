import PiRelaySDK

extension TelegramSettings {
    /// `warnings` receives unknown keys inside chat entries; the caller reports the section's own.
    init(_ section: ConfigSection, home: String?, warnings: inout [String]) throws(ConfigError) {
        self.init()
        tokenEnv = try section.value("tokenEnv", default: tokenEnv) { f throws(ConfigError) in try f.environmentName() }
        allowedUsers = try section.value("allowedUsers", default: []) { f throws(ConfigError) in
            var ids: [String] = []
            for item in try f.list("a list of Telegram user ids") { ids.append(try Self.id(item, negative: false)) }
            return ids
        }
        chats = try section.value("chats", default: []) { f throws(ConfigError) in try Self.chats(f, home: home, warnings: &warnings) }
        requireMention = try section.value("requireMention", default: requireMention) { f throws(ConfigError) in try f.bool() }
        apiBase = try section.value("apiBase", default: apiBase) { f throws(ConfigError) in
            let url = try f.nonEmptyString("a URL")
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw f.error("must be an http:// or https:// URL") }
            return url
        }
        // The URL may carry a password: errors name what is wrong, never the value.
        proxy = try section.value("proxy", default: nil) { f throws(ConfigError) in try f.string("a proxy URL") }
        pollTimeoutSeconds = try section.value("pollTimeoutSeconds", default: pollTimeoutSeconds) { f throws(ConfigError) in
            try f.integer(in: 1...50)
        }
    }

    /// A Telegram id: digits (a group's, negative). YAML may read it as a number; both are fine.
    private static func id(_ field: ConfigField, negative: Bool) throws(ConfigError) -> String {
        let text: String
        switch field.node.scalarValue {
        case .integer(let digits): text = digits
        case .string(let value): text = value.trimmingInlineSpace()
        default: throw field.mismatch(negative ? "a Telegram chat id" : "a Telegram user id")
        }
        let digits = negative && text.hasPrefix("-") ? String(text.dropFirst()) : text
        guard !digits.isEmpty, digits.count <= 16, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw field.error(
                negative
                    ? "must be a Telegram chat id: digits, negative for a group (-1001234567890)"
                    : "must be a Telegram user id: digits only (message @userinfobot to learn yours)")
        }
        return text
    }

    private static func chats(_ field: ConfigField, home: String?, warnings: inout [String]) throws(ConfigError) -> [Chat] {
        var result: [Chat] = []
        for item in try field.list("a list of chats like {id: -1001234567890, cwd: /path, name: api}") {
            let section = try item.section()
            guard let idField = section.field("id") else { throw item.error("needs an id (the Telegram chat id)") }
            let id = try Self.id(idField, negative: true)
            let cwd = try section.value("cwd", default: nil) { f throws(ConfigError) in try f.absolutePath(home: home) }
            let name = try section.value("name", default: nil) { f throws(ConfigError) in try f.nonEmptyString() }
            result.append(Chat(id: id, cwd: cwd, name: name))
            warnings.append(contentsOf: section.unknownKeyWarnings())
        }
        return result
    }

    /// The plugin's copy of the section, made to say what was checked: ids as strings, `~`
    /// expanded in paths, `requireMention: no` as the boolean it means.
    func normalising(_ json: JSONValue) -> JSONValue {
        guard case .object(var object) = json else { return json }
        if let users = object["allowedUsers"], !users.isNull { object["allowedUsers"] = .array(allowedUsers.map { .string($0) }) }
        if let mention = object["requireMention"], !mention.isNull { object["requireMention"] = .bool(requireMention) }
        if case .array(let entries)? = object["chats"] {
            object["chats"] = .array(
                zip(entries, chats).map { entry, chat in
                    var entry = entry
                    entry["id"] = .string(chat.id)
                    if let cwd = chat.cwd { entry["cwd"] = .string(cwd) }
                    return entry
                })
        }
        return .object(object)
    }
}
