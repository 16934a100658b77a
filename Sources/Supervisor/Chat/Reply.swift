import PiRelaySDK

/// What a messenger shows in answer to a chat message or command (see docs/PROTOCOL.md).
struct Reply: Sendable {
    struct Action: Sendable {
        var id: String
        var label: String
        var style: String
    }

    var text: String
    var ephemeral = false
    var actions: [[Action]] = []
    var openThread: (name: String, sessionID: String)?

    init(_ text: String, ephemeral: Bool = false) {
        self.text = text
        self.ephemeral = ephemeral
    }

    var json: JSONValue {
        var o: JSONValue = ["text": .string(text), "ephemeral": .bool(ephemeral)]
        if !actions.isEmpty {
            o["actions"] = .array(
                actions.map { row in
                    .array(row.map { ["id": .string($0.id), "label": .string(String($0.label.prefix(80))), "style": .string($0.style)] })
                })
        }
        if let t = openThread { o["openThread"] = ["name": .string(t.name), "sessionId": .string(t.sessionID)] }
        return o
    }

    static let notAuthorized = Reply("Not authorized.", ephemeral: true)
}
