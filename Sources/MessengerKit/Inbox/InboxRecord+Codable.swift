import PiRelaySDK

/// The JSON released plugins wrote: `{"pending", "seen"}`, plus `"lastUpdate"` for a polling
/// transport and `"events"` for one that redelivers by id; the seen ids under `Message.seenKey`.
/// `"answers"` is written only while one waits to be shown, and `"joined"` only while a group's
/// hand-over is unfinished; each is read as none when absent.
extension InboxRecord: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }

        static var cursor: Key { Key("lastUpdate") }
        static var events: Key { Key("events") }
        static var pending: Key { Key("pending") }
        static var answers: Key { Key("answers") }
        static var joined: Key { Key("joined") }
        static var seen: Key { Key(Message.seenKey) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        cursor = try container.decodeIfPresent(Int.self, forKey: .cursor)
        events = try container.decodeIfPresent([String].self, forKey: .events)
        seen = try container.decodeIfPresent([String].self, forKey: .seen) ?? []
        pending = try container.decodeIfPresent([Message].self, forKey: .pending) ?? []
        answers = try container.decodeIfPresent([String: JSONValue].self, forKey: .answers) ?? [:]
        joined = try container.decodeIfPresent([String: [String]].self, forKey: .joined) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(cursor, forKey: .cursor)
        try container.encodeIfPresent(events, forKey: .events)
        try container.encode(seen, forKey: .seen)
        try container.encode(pending, forKey: .pending)
        if !answers.isEmpty { try container.encode(answers, forKey: .answers) }
        if !joined.isEmpty { try container.encode(joined, forKey: .joined) }
    }
}
