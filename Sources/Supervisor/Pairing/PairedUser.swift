import PiRelaySDK

/// A chat user added with `pi-relayd pair`.
package struct PairedUser: Sendable, Equatable {
    package let messenger: String
    package let id: String
    package let name: String
    /// ISO 8601, UTC.
    package let pairedAt: String

    package var json: JSONValue {
        ["messenger": .string(messenger), "id": .string(id), "name": .string(name), "pairedAt": .string(pairedAt)]
    }

    package init(messenger: String, id: String, name: String, pairedAt: String) {
        self.messenger = messenger
        self.id = id
        self.name = name
        self.pairedAt = pairedAt
    }

    package init?(json: JSONValue) {
        guard let messenger = json["messenger"]?.stringValue, let id = json["id"]?.stringValue, !id.isEmpty else { return nil }
        self.init(messenger: messenger, id: id, name: json["name"]?.stringValue ?? id, pairedAt: json["pairedAt"]?.stringValue ?? "")
    }
}
