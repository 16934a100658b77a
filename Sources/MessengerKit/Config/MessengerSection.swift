import PiRelayHTTP
import PiRelaySDK

/// A plugin's section of config.yaml, read once at start. Every problem is a
/// `PluginExit.notConfigured` (exit 78) whose text names the key as the user wrote it
/// (`slack.apiBase must be …`), so each plugin checks its own keys with the same words.
public struct MessengerSection: Sendable {
    /// The section's name in config.yaml (`telegram`), the first part of every key named.
    public let name: String
    public let value: JSONValue

    /// An absent section reads as an empty one; anything but a mapping is refused.
    public init(_ value: JSONValue, name: String) throws {
        self.name = name
        self.value = value.isNull ? [:] : value
        guard self.value.objectValue != nil else { throw Self.problem("the \(name) section of config.yaml must be a mapping") }
    }

    public subscript(key: String) -> JSONValue? { value[key] }

    public static func problem(_ text: String) -> PluginExit { .notConfigured(text) }
    public func problem(_ text: String) -> PluginExit { Self.problem(text) }

    /// A string, or nil when the key is absent or null. `within` reads a key of a nested mapping
    /// (`web.tls.certificate`), named as the section's.
    public func string(_ key: String, within nested: JSONValue? = nil) throws -> String? {
        switch (nested ?? value)[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw problem("\(name).\(key) must be a string")
        }
    }

    public func bool(_ key: String, default fallback: Bool) throws -> Bool {
        switch value[key] {
        case nil, .null?: return fallback
        case .bool(let flag)?: return flag
        default: throw problem("\(name).\(key) must be true or false")
        }
    }

    /// The items of a list, none when the key is absent or null; `items` says what the list
    /// holds, for the error (`slack.channels must be a list of {id, cwd, name}`).
    public func list(_ key: String, of items: String) throws -> [JSONValue] {
        guard let list = value[key], !list.isNull else { return [] }
        guard let array = list.arrayValue else { throw problem("\(name).\(key) must be a list of \(items)") }
        return array
    }

    /// `apiBase`: an http(s) URL without trailing slashes (tests point it at a fake service).
    public func apiBase(default fallback: String) throws -> String {
        var base = try string("apiBase") ?? fallback
        while base.hasSuffix("/") { base.removeLast() }
        guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
            throw problem("\(name).apiBase must be an http(s) URL such as \(fallback)")
        }
        return base
    }

    /// `proxy`, else the environment's (`HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`).
    package func proxy(environment: [String: String]) throws -> ProxySetting {
        ProxySetting.resolve(configured: try string("proxy"), environment: environment)
    }

    public var sharedRooms: SharedRooms { SharedRooms(value["sharedRooms"]) }

    /// The ids in a comma-separated environment variable (`TELEGRAM_ALLOWED_USERS`), each checked
    /// by `isID`; `what` names a good one for the error ("a Telegram user id (digits only)").
    public static func environmentIDs(
        _ variable: String, _ environment: [String: String], isID: (String) -> Bool, what: String
    ) throws -> [String] {
        var ids: [String] = []
        for part in (environment[variable] ?? "").split(separator: ",") {
            let id = part.trimmingInlineSpace()
            guard !id.isEmpty else { continue }
            guard isID(id) else { throw problem("\(variable): \"\(id)\" is not \(what)") }
            ids.append(id)
        }
        return ids
    }

    /// The chats a section lists under `key`. `id` reads an item's id (its own key, a bare
    /// string or number, as each messenger allows) and throws its own error; `check` says what is
    /// wrong with an id read, or nil when it is good.
    public func chats(
        _ key: String, id: (Int, JSONValue) throws -> String, check: (Int, String) -> String?
    ) throws -> [ChatSetting] {
        try list(key, of: "{id, cwd, name}").enumerated().map { index, item in
            let chat = try id(index, item)
            if let wrong = check(index, chat) { throw problem(wrong) }
            return ChatSetting(id: chat, cwd: item["cwd"]?.stringValue, name: item["name"]?.stringValue)
        }
    }
}
