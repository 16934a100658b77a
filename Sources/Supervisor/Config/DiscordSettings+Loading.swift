import PiRelaySDK

extension DiscordSettings {
    /// What both of the plugin's paths speak: libcurl (REST) and the gateway's WebSocket client,
    /// which does HTTP CONNECT in plain text and SOCKS5 only. An `https://` proxy would get a
    /// plain CONNECT and a `socks4://` one SOCKS5 from the gateway, so they are refused.
    static let proxySchemes = ["http://", "socks5://", "socks5h://"]

    /// `warnings` receives unknown keys inside channel entries; the caller reports the section's
    /// own unknown keys.
    init(_ section: ConfigSection, home: String?, warnings: inout [String]) throws(ConfigError) {
        self.init()
        tokenEnv = try section.value("tokenEnv", default: tokenEnv) { f throws(ConfigError) in try f.environmentName() }
        allowedUsers = try section.value("allowedUsers", default: []) { f throws(ConfigError) in
            try Self.ids(f, "a list of Discord user ids", what: "user")
        }
        guilds = try section.value("guilds", default: []) { f throws(ConfigError) in
            try Self.ids(f, "a list of Discord server ids", what: "server")
        }
        channels = try section.value("channels", default: []) { f throws(ConfigError) in
            try Self.channels(f, home: home, warnings: &warnings)
        }
        requireMention = try section.value("requireMention", default: requireMention) { f throws(ConfigError) in
            try f.bool()
        }
        apiBase = try section.value("apiBase", default: apiBase) { f throws(ConfigError) in
            let url = try f.nonEmptyString("a URL")
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw f.error("must be an http:// or https:// URL")
            }
            return url
        }
        proxy = try section.value("proxy", default: nil) { f throws(ConfigError) in
            // The URL may carry a password, so the message names the schemes but never the value.
            let url = try f.string("a proxy URL")
            // Empty means "connect directly", whatever HTTPS_PROXY says.
            if url.isEmpty { return url }
            guard Self.proxySchemes.contains(where: { url.lowercased().hasPrefix($0) }) else {
                throw f.error(
                    "must be a proxy URL starting with one of: \(Self.proxySchemes.joined(separator: ", ")), or \"\" for none "
                        + "(the gateway cannot use https:// or socks4 proxies)")
            }
            return url
        }
    }

    private static func ids(_ field: ConfigField, _ expected: String, what: String) throws(ConfigError) -> [String] {
        var result: [String] = []
        for item in try field.list(expected) { result.append(try item.discordID(what)) }
        return result
    }

    private static func channels(
        _ field: ConfigField, home: String?,
        warnings: inout [String]
    ) throws(ConfigError) -> [Channel] {
        var result: [Channel] = []
        var firstIndex: [String: Int] = [:]
        for (index, item) in try field.list("a list of channels like {id: \"123\", cwd: /path, name: api}").enumerated() {
            let section = try item.section()
            guard let idField = section.field("id") else {
                throw item.error("needs an id (the Discord channel id)")
            }
            let id = try idField.discordID("channel")
            if let first = firstIndex[id] {
                throw idField.error("is the same channel as \(field.path)[\(first)]")
            }
            firstIndex[id] = index
            let cwd = try section.value("cwd", default: nil) { f throws(ConfigError) in try f.absolutePath(home: home) }
            let name = try section.value("name", default: nil) { f throws(ConfigError) in try f.nonEmptyString() }
            result.append(Channel(id: id, cwd: cwd, name: name))
            warnings.append(contentsOf: section.unknownKeyWarnings())
        }
        return result
    }

    /// The plugin's copy of the section, made to say what was checked: ids as strings (a YAML
    /// number would reach the plugin as a Double and lose digits) and `~` expanded in paths.
    func normalising(_ json: JSONValue) -> JSONValue {
        guard case .object(var object) = json else { return json }
        if let users = object["allowedUsers"], !users.isNull { object["allowedUsers"] = .array(allowedUsers.map { .string($0) }) }
        if let ids = object["guilds"], !ids.isNull { object["guilds"] = .array(guilds.map { .string($0) }) }
        // `requireMention: no` is a string to libyaml; the plugin reads a boolean.
        if let mention = object["requireMention"], !mention.isNull { object["requireMention"] = .bool(requireMention) }
        if case .array(let entries)? = object["channels"] {
            object["channels"] = .array(
                zip(entries, channels).map { entry, channel in
                    var entry = entry
                    entry["id"] = .string(channel.id)
                    if let cwd = channel.cwd { entry["cwd"] = .string(cwd) }
                    return entry
                })
        }
        return .object(object)
    }
}
