/// A plugin's config section as the plugin declares it in its hello (`config`, docs/PROTOCOL.md
/// §3): its keys and their types. pi-relayd checks the section against it before the welcome, with
/// `file:line:column` errors, and hands the plugin the section as checked (ids as strings, `~`
/// expanded, `yes`/`no` as booleans). Keys the schema does not name warn, with the nearest one.
public struct ConfigSchema: Sendable, Equatable {
    /// The section's keys, in the order `setup` and the docs show them.
    public var keys: [ConfigKey]

    /// A schema of these keys.
    public init(keys: [ConfigKey]) {
        self.keys = keys
    }

    /// The keys naming a variable that holds a secret, in order: the first is the bot's token.
    public var secrets: [(key: String, secret: ConfigSecret)] {
        keys.compactMap { key in
            if case .secret(let secret) = key.type { return (key.name, secret) }
            return nil
        }
    }
}

extension ConfigSchema: WirePayload {
    /// Reads a schema; an unknown type is an error, never a key left unchecked.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "config")
        var keys: [ConfigKey] = []
        for item in fields.array("keys") { keys.append(try ConfigKey(json: item)) }
        self.init(keys: keys)
    }

    /// `{keys: [...]}`.
    public var json: JSONValue { ["keys": keys.json] }
}
