import PiRelaySDK

/// What the supervisor wants shown to the user (protocol §6 "Reply").
struct Reply: Sendable, Equatable {
    struct Action: Sendable, Equatable {
        var id: String
        var label: String
        var style: String
    }

    struct OpenThread: Sendable, Equatable {
        var name: String
        var sessionID: String
    }

    var text: String
    var ephemeral: Bool
    var actions: [[Action]]
    var openThread: OpenThread?

    init(text: String = "", ephemeral: Bool = false, actions: [[Action]] = [], openThread: OpenThread? = nil) {
        self.text = text
        self.ephemeral = ephemeral
        self.actions = actions
        self.openThread = openThread
    }

    /// Tolerant of missing fields: a Reply with nothing usable is an empty text.
    init(_ json: JSONValue) {
        text = json["text"]?.stringValue ?? ""
        ephemeral = json["ephemeral"]?.boolValue ?? false
        actions = (json["actions"]?.arrayValue ?? []).map { row in
            (row.arrayValue ?? []).compactMap { item in
                guard let id = item["id"]?.stringValue, !id.isEmpty else { return nil }
                return Action(id: id, label: item["label"]?.stringValue ?? id, style: item["style"]?.stringValue ?? "secondary")
            }
        }.filter { !$0.isEmpty }
        if let thread = json["openThread"], let session = thread["sessionId"]?.stringValue {
            openThread = OpenThread(name: thread["name"]?.stringValue ?? session, sessionID: session)
        }
    }

    var isEmpty: Bool { text.isEmpty && actions.isEmpty }
}
