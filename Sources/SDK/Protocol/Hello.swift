/// The first line a plugin writes (docs/PROTOCOL.md §3).
public struct Hello: Sendable, Equatable {
    /// The protocol version the plugin speaks; this SDK speaks `WireMessage.protocolVersion`.
    public var `protocol`: Int
    /// The plugin's name, for logs and `pi-relayd plugins`.
    public var name: String
    /// The plugin's own version, free text.
    public var version: String
    /// `messenger`, `formatter`, `attachments`, or a name of the plugin's own.
    public var roles: [String]
    /// Numbers the supervisor respects, e.g. `maxMessageLength`.
    public var limits: [String: Int]
    /// One line on what the plugin does.
    public var description: String?
    /// A messenger's markup (`markdown` when absent); the formatter renders for it.
    public var dialect: Dialect?
    /// The commands a messenger offers in its own menu (Discord's slash commands, Telegram's
    /// "/" menu); `/help` lists these. Empty: the supervisor's own list.
    public var commands: [MessengerCommand]
    /// The plugin's config section, declared: pi-relayd checks the section against it before the
    /// welcome. Nil: the section is passed on as written.
    public var config: ConfigSchema?
    /// A messenger's text for `pi-relayd setup` and `doctor`; nil for a plugin setup does not know.
    public var setup: MessengerSetup?

    /// A hello; the protocol version defaults to this SDK's.
    public init(
        protocol: Int = WireMessage.protocolVersion, name: String, version: String, roles: [String],
        limits: [String: Int] = [:], description: String? = nil, dialect: Dialect? = nil, commands: [MessengerCommand] = [],
        config: ConfigSchema? = nil, setup: MessengerSetup? = nil
    ) {
        self.protocol = `protocol`
        self.name = name
        self.version = version
        self.roles = roles
        self.limits = limits
        self.description = description
        self.dialect = dialect
        self.commands = commands
        self.config = config
        self.setup = setup
    }
}

extension Hello: WirePayload {
    /// Reads a hello; `protocol` and `name` are required, and a `config` or `setup` that does not
    /// read is an error (a section pi-relayd cannot check is not passed on unchecked).
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "hello")
        var limits: [String: Int] = [:]
        for (key, value) in json["limits"]?.objectValue ?? [:] { if let number = value.intValue { limits[key] = number } }
        self.init(
            protocol: try fields.int("protocol"), name: try fields.string("name"), version: fields.optionalString("version") ?? "0",
            roles: fields.strings("roles"), limits: limits, description: fields.optionalString("description"),
            dialect: fields.optionalString("dialect").map { Dialect(wireName: $0) }, commands: fields.list("commands", of: MessengerCommand.self),
            config: try fields.optional("config", as: ConfigSchema.self), setup: try fields.optional("setup", as: MessengerSetup.self))
    }

    /// The hello as it is written, `type` included.
    public var json: JSONValue {
        var object: JSONValue = [
            "type": "hello", "protocol": JSONValue(self.protocol), "name": .string(name), "version": .string(version),
            "roles": roles.json, "limits": .object(limits.mapValues { JSONValue($0) }),
        ]
        object["description"] = description.map { .string($0) }
        object["dialect"] = dialect.map { .string($0.rawValue) }
        if !commands.isEmpty { object["commands"] = .array(commands.map(\.json)) }
        object["config"] = config?.json
        object["setup"] = setup?.json
        return object
    }
}
