/// pi-relayd's answer to a hello (docs/PROTOCOL.md §3 and §7): where the plugin keeps its
/// state, its config section, and the sessions and bindings of the moment.
public struct Welcome: Sendable, Equatable {
    /// The protocol version pi-relayd speaks.
    public var `protocol`: Int
    /// The plugin's id: its file name in the plugins folder.
    public var plugin: String
    /// The plugin's section of config.yaml, `{}` when there is none.
    public var config: JSONValue
    /// A private directory for the plugin's own state; it survives restarts.
    public var stateDir: String
    /// Where files are exchanged by path (§8).
    public var spoolDir: String
    /// pi-relayd's home folder.
    public var home: String
    /// The sessions of the moment.
    public var sessions: [SessionSummary]
    /// The chats bound to sessions, those of this plugin only.
    public var bindings: [BindingSummary]
    /// For a messenger: every user id the supervisor lets through, configured and paired (`chat.allowlist`
    /// brings changes). Empty for other plugins.
    public var allowedUsers: [String]
    /// True when a CLI command (`pi-relayd setup`) started the plugin only to ask it something
    /// (`messenger.identity`): it must not connect to its service's event stream, post, or act on
    /// chats. The SDK's runtime then never calls `run()`.
    public var checkOnly: Bool
    /// Where a session starts when nothing names a folder (`sessions.defaultCwd`, else pi-relayd's
    /// `$HOME`); nil from an older pi-relayd or when it has neither.
    public var newSessionFolder: String?
    /// For a messenger whose inbound traffic a federation hands to one machine at a time: whether
    /// this machine takes it now (`messenger.ingress` brings changes). Nil: always (no federation).
    public var ingress: IngressChange?

    /// A welcome in this SDK's protocol version.
    public init(
        plugin: String, config: JSONValue = [:], stateDir: String, spoolDir: String, home: String,
        sessions: [SessionSummary] = [], bindings: [BindingSummary] = [], allowedUsers: [String] = [], checkOnly: Bool = false,
        newSessionFolder: String? = nil, ingress: IngressChange? = nil
    ) {
        self.protocol = WireMessage.protocolVersion
        self.plugin = plugin
        self.config = config
        self.stateDir = stateDir
        self.spoolDir = spoolDir
        self.home = home
        self.sessions = sessions
        self.bindings = bindings
        self.allowedUsers = allowedUsers
        self.checkOnly = checkOnly
        self.newSessionFolder = newSessionFolder
        self.ingress = ingress
    }
}

extension Welcome: WirePayload {
    /// Reads a welcome. Only `stateDir` is required; a welcome from an older pi-relayd may lack the rest.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "welcome")
        let stateDir = try fields.string("stateDir")
        self.init(
            plugin: fields.optionalString("plugin") ?? "", config: json["config"].flatMap { $0.isNull ? nil : $0 } ?? [:],
            stateDir: stateDir, spoolDir: fields.optionalString("spoolDir") ?? stateDir, home: fields.optionalString("home") ?? stateDir,
            sessions: fields.list("sessions", of: SessionSummary.self), bindings: fields.list("bindings", of: BindingSummary.self),
            allowedUsers: fields.strings("allowedUsers"), checkOnly: fields.bool("checkOnly", default: false),
            newSessionFolder: fields.optionalString("newSessionFolder"), ingress: try fields.optional("ingress", as: IngressChange.self))
        self.protocol = fields.optionalInt("protocol") ?? WireMessage.protocolVersion
    }

    /// The welcome as it is written, `type` included; `allowedUsers` only when not empty,
    /// `checkOnly` only when true, `newSessionFolder` and `ingress` only when known.
    public var json: JSONValue {
        var object: JSONValue = [
            "type": "welcome", "protocol": JSONValue(self.protocol), "plugin": .string(plugin), "config": config,
            "stateDir": .string(stateDir), "spoolDir": .string(spoolDir), "home": .string(home),
            "sessions": sessions.json, "bindings": bindings.json,
        ]
        if !allowedUsers.isEmpty { object["allowedUsers"] = allowedUsers.json }
        if checkOnly { object["checkOnly"] = true }
        if let newSessionFolder { object["newSessionFolder"] = .string(newSessionFolder) }
        if let ingress { object["ingress"] = ingress.json }
        return object
    }
}
