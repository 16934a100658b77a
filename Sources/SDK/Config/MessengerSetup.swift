/// What `pi-relayd setup` and `pi-relayd doctor` say about a messenger, as the plugin declares it
/// in its hello (`setup`). The tokens to ask for are the `secret` keys of its config schema.
public struct MessengerSetup: Sendable, Equatable {
    /// The service's name as people write it: "Telegram".
    public var title: String
    /// The line before the bot's link once the token is good: "Open the bot:".
    public var linkLabel: String
    /// Lines shown after the link ("The app manifest: pi-relayd setup slack --manifest").
    public var notes: [String]
    /// Shown before asking for a token nobody has set yet: how to make the bot or app.
    public var instructions: String?
    /// What `pi-relayd setup NAME --manifest` prints: the app's manifest, for services that
    /// create apps from one (Slack).
    public var manifest: String?

    /// A setup text.
    public init(title: String, linkLabel: String, notes: [String] = [], instructions: String? = nil, manifest: String? = nil) {
        self.title = title
        self.linkLabel = linkLabel
        self.notes = notes
        self.instructions = instructions
        self.manifest = manifest
    }
}

extension MessengerSetup: WirePayload {
    /// Reads a setup text; `title` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "setup")
        self.init(
            title: try fields.string("title"), linkLabel: fields.optionalString("linkLabel") ?? "Open the bot:", notes: fields.strings("notes"),
            instructions: fields.optionalString("instructions"), manifest: fields.optionalString("manifest"))
    }

    /// `{title, linkLabel, notes?, instructions?, manifest?}`.
    public var json: JSONValue {
        var object: JSONValue = ["title": .string(title), "linkLabel": .string(linkLabel)]
        if !notes.isEmpty { object["notes"] = notes.json }
        object["instructions"] = instructions.map { .string($0) }
        object["manifest"] = manifest.map { .string($0) }
        return object
    }
}
