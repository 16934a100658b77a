/// A list of maps keyed by one of their keys: Discord's and Slack's `channels`, Telegram's
/// `chats`. Each entry must have the key; its other keys are checked like a section's.
public struct ConfigEntries: Sendable, Equatable {
    /// The whole list, for errors: "a list of chats like {id: -1001234567890, cwd: /path}".
    public var what: String
    /// The key every entry must have, e.g. `id`.
    public var key: String
    /// What that key is, in "needs an id (HINT)".
    public var keyHint: String
    /// When set, two entries with the same key are refused: "is the same NOUN as LIST[0]".
    public var uniqueNoun: String?
    /// Every key of an entry, `key` among them.
    public var keys: [ConfigKey]

    /// A list of entries.
    public init(what: String, key: String, keyHint: String, uniqueNoun: String? = nil, keys: [ConfigKey]) {
        self.what = what
        self.key = key
        self.keyHint = keyHint
        self.uniqueNoun = uniqueNoun
        self.keys = keys
    }
}

extension ConfigEntries: WirePayload {
    /// Reads an entries type (`type: entries`).
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "entries")
        var keys: [ConfigKey] = []
        for item in fields.array("keys") { keys.append(try ConfigKey(json: item)) }
        self.init(
            what: fields.optionalString("what") ?? "a list of maps", key: try fields.string("entryKey"),
            keyHint: fields.optionalString("keyHint") ?? "",
            uniqueNoun: fields.optionalString("unique"), keys: keys)
    }

    /// `{type: entries, what, entryKey, keyHint, unique?, keys}`.
    public var json: JSONValue {
        var object: JSONValue = [
            "type": "entries", "what": .string(what), "entryKey": .string(key), "keyHint": .string(keyHint), "keys": keys.json,
        ]
        object["unique"] = uniqueNoun.map { .string($0) }
        return object
    }
}
