import PiRelaySDK

/// A chat user added with `pi-relayd pair`.
struct PairedUser: Sendable, Equatable {
    let messenger: String
    let id: String
    let name: String
    /// ISO 8601, UTC.
    let pairedAt: String

    var json: JSONValue {
        ["messenger": .string(messenger), "id": .string(id), "name": .string(name), "pairedAt": .string(pairedAt)]
    }

    init(messenger: String, id: String, name: String, pairedAt: String) {
        self.messenger = messenger
        self.id = id
        self.name = name
        self.pairedAt = pairedAt
    }

    init?(json: JSONValue) {
        guard let messenger = json["messenger"]?.stringValue, let id = json["id"]?.stringValue, !id.isEmpty else { return nil }
        self.init(messenger: messenger, id: id, name: json["name"]?.stringValue ?? id, pairedAt: json["pairedAt"]?.stringValue ?? "")
    }
}
