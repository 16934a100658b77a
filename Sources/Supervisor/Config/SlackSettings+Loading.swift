import PiRelaySDK

extension SlackSettings {
    /// `warnings` receives unknown keys inside channel entries; the caller reports the section's own.
    init(_ section: ConfigSection, home: String?, warnings: inout [String]) throws(ConfigError) {
        self.init()
        botTokenEnv = try section.value("botTokenEnv", default: botTokenEnv) { f throws(ConfigError) in try f.environmentName() }
        appTokenEnv = try section.value("appTokenEnv", default: appTokenEnv) { f throws(ConfigError) in try f.environmentName() }
        allowedUsers = try section.value("allowedUsers", default: []) { f throws(ConfigError) in
            var ids: [String] = []
            for item in try f.list("a list of Slack member ids") { ids.append(try Self.id(item, kinds: "UW", what: "a Slack member id (U…)")) }
            return ids
        }
        channels = try section.value("channels", default: []) { f throws(ConfigError) in try Self.channels(f, home: home, warnings: &warnings) }
        requireMention = try section.value("requireMention", default: requireMention) { f throws(ConfigError) in try f.bool() }
        apiBase = try section.value("apiBase", default: apiBase) { f throws(ConfigError) in
            let url = try f.nonEmptyString("a URL")
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw f.error("must be an http:// or https:// URL") }
            return url
        }
        // The URL may carry a password: errors name what is wrong, never the value.
        proxy = try section.value("proxy", default: nil) { f throws(ConfigError) in try f.string("a proxy URL") }
    }

    /// A Slack id: its kind's letter (`U`/`W` for members, `C`/`G` for channels), then capital
    /// letters and digits. Slack says ids may grow, so no length is checked.
    private static func id(_ field: ConfigField, kinds: String, what: String) throws(ConfigError) -> String {
        guard case .string(let raw) = field.node.scalarValue else { throw field.mismatch(what) }
        let text = raw.trimmingInlineSpace()
        guard let first = text.first, kinds.contains(first), text.count >= 2,
            text.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
        else {
            throw field.error("must be \(what): in Slack, a profile's ⋮ menu → Copy member ID, or a channel's details")
        }
        return text
    }

    private static func channels(_ field: ConfigField, home: String?, warnings: inout [String]) throws(ConfigError) -> [Channel] {
        var result: [Channel] = []
        for item in try field.list("a list of channels like {id: C0123ABCD, cwd: /path, name: api}") {
            let section = try item.section()
            guard let idField = section.field("id") else { throw item.error("needs an id (the Slack channel id, C… or G…)") }
            let id = try Self.id(idField, kinds: "CG", what: "a Slack channel id (C… or G…)")
            let cwd = try section.value("cwd", default: nil) { f throws(ConfigError) in try f.absolutePath(home: home) }
            let name = try section.value("name", default: nil) { f throws(ConfigError) in try f.nonEmptyString() }
            result.append(Channel(id: id, cwd: cwd, name: name))
            warnings.append(contentsOf: section.unknownKeyWarnings())
        }
        return result
    }

    /// The plugin's copy of the section, made to say what was checked: `~` expanded in paths,
    /// `requireMention: no` as the boolean it means.
    func normalising(_ json: JSONValue) -> JSONValue {
        guard case .object(var object) = json else { return json }
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
