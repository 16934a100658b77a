import PiRelaySDK

/// One Socket Mode envelope (spec section 3.4): what Slack wants acknowledged within 3 s.
struct Envelope: Sendable, Equatable {
    enum Kind: String, Sendable {
        case eventsAPI = "events_api"
        case interactive
        case slashCommands = "slash_commands"
    }

    var id: String
    var kind: Kind
    var payload: JSONValue
    /// 0 for a first delivery; 1, 2, 3 for Slack's retries of an unacknowledged event.
    var retryAttempt: Int

    /// Nil for frames that are not envelopes (`hello`, `disconnect`) or of a kind we do not know.
    init?(json: JSONValue) {
        guard let id = json["envelope_id"]?.stringValue, let type = json["type"]?.stringValue, let kind = Kind(rawValue: type) else {
            return nil
        }
        self.id = id
        self.kind = kind
        payload = json["payload"] ?? [:]
        retryAttempt = json["retry_attempt"]?.intValue ?? 0
    }

    /// The acknowledgement: the envelope's id and nothing else (replies go through the Web API).
    var ack: String { String(decoding: (["envelope_id": .string(id)] as JSONValue).serializedBytes(), as: UTF8.self) }
}
