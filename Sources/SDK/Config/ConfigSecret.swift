/// A key naming the environment variable (or .env entry) that holds a secret, such as a bot token.
/// The secret itself never appears in config.yaml; `setup` asks for it and saves it in .env under
/// `variable` (or the name the key gives), and `doctor` says when it is missing.
public struct ConfigSecret: Sendable, Equatable {
    /// The variable read when the key is absent, e.g. `TELEGRAM_BOT_TOKEN`.
    public var variable: String
    /// What the secret is, as a person calls it: "bot token", "app-level token".
    public var name: String
    /// How every such secret starts (`xoxb-`), so `setup` can refuse the wrong one; "" for none.
    public var prefix: String
    /// Where the user gets it: "@BotFather (/newbot, or /token for an existing bot)".
    public var source: String
    /// The plugin cannot work without it.
    public var required: Bool

    /// A secret.
    public init(variable: String, name: String, prefix: String = "", source: String, required: Bool = true) {
        self.variable = variable
        self.name = name
        self.prefix = prefix
        self.source = source
        self.required = required
    }
}

extension ConfigSecret: WirePayload {
    /// Reads a secret type (`type: secret`); `variable` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "secret")
        self.init(
            variable: try fields.string("variable"), name: fields.optionalString("name") ?? "secret", prefix: fields.optionalString("prefix") ?? "",
            source: fields.optionalString("source") ?? "", required: fields.bool("required", default: true))
    }

    /// `{type: secret, variable, name, prefix?, source, required}`.
    public var json: JSONValue {
        var object: JSONValue = [
            "type": "secret", "variable": .string(variable), "name": .string(name), "source": .string(source), "required": .bool(required),
        ]
        if !prefix.isEmpty { object["prefix"] = .string(prefix) }
        return object
    }
}
