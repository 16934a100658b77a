/// One key of a plugin's config section: its name, its type, and a line on what it does.
public struct ConfigKey: Sendable, Equatable {
    public var name: String
    public var type: ConfigType
    /// What the key does, for `pi-relayd config` and docs; not used to check.
    public var help: String?

    /// A key.
    public init(_ name: String, _ type: ConfigType, help: String? = nil) {
        self.name = name
        self.type = type
        self.help = help
    }
}

extension ConfigKey: WirePayload {
    /// Reads a key: its `type`'s members beside `key` and `help`.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "config key")
        let name = try fields.string("key")
        self.init(name, try ConfigType(json: json, context: "config key \(name)"), help: fields.optionalString("help"))
    }

    /// The type's object with `key` (and `help`) added.
    public var json: JSONValue {
        var object = type.json
        object["key"] = .string(name)
        object["help"] = help.map { .string($0) }
        return object
    }
}
