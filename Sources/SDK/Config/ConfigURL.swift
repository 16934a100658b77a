/// A URL setting: an API base, a proxy. Errors name the schemes, never the value (a proxy URL may
/// carry a password).
public struct ConfigURL: Sendable, Equatable {
    /// What it is, for errors: "a URL", "a proxy URL".
    public var what: String
    /// The schemes accepted, with their `://`; empty accepts any text.
    public var schemes: [String]
    /// "" is accepted and means none (connect directly, say).
    public var emptyMeansNone: Bool
    /// Why only these schemes, added to the error in parentheses.
    public var note: String?

    /// A URL setting.
    public init(what: String = "a URL", schemes: [String] = ["http://", "https://"], emptyMeansNone: Bool = false, note: String? = nil) {
        self.what = what
        self.schemes = schemes
        self.emptyMeansNone = emptyMeansNone
        self.note = note
    }
}

extension ConfigURL: WirePayload {
    /// Reads a URL type (`type: url`).
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "url")
        self.init(
            what: fields.optionalString("what") ?? "a URL", schemes: fields.strings("schemes"),
            emptyMeansNone: fields.bool("emptyMeansNone", default: false), note: fields.optionalString("note"))
    }

    /// `{type: url, what, schemes, emptyMeansNone?, note?}`.
    public var json: JSONValue {
        var object: JSONValue = ["type": "url", "what": .string(what), "schemes": schemes.json]
        if emptyMeansNone { object["emptyMeansNone"] = true }
        object["note"] = note.map { .string($0) }
        return object
    }
}
