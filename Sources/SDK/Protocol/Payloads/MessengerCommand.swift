/// A command a messenger registered in its own menu, as its hello lists it for `/help`.
public struct MessengerCommand: Sendable, Equatable {
    /// The name without the slash, e.g. `progress`.
    public var name: String
    /// How to call it, e.g. `/progress quiet|normal|verbose|completion-only`; `/name` when absent.
    public var usage: String?
    /// One line on what it does.
    public var description: String

    /// A command.
    public init(name: String, usage: String? = nil, description: String) {
        self.name = name
        self.usage = usage
        self.description = description
    }
}

extension MessengerCommand: WirePayload {
    /// Reads a command; `name` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "command")
        self.init(name: try fields.string("name"), usage: fields.optionalString("usage"), description: fields.optionalString("description") ?? "")
    }

    /// `{name, usage?, description}`.
    public var json: JSONValue {
        var object: JSONValue = ["name": .string(name), "description": .string(description)]
        object["usage"] = usage.map { .string($0) }
        return object
    }
}
