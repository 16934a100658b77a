import PiRelaySDK

/// How the bot answered one interaction, once for good (after a deferral, the edited original).
struct StackReply: Sendable, CustomStringConvertible {
    /// The callback type: 4 a message, 5 deferred then edited, 6 acknowledged without a message.
    let ack: Int
    let text: String
    let components: [JSONValue]
    let ephemeral: Bool
    /// The response message, which buttons are clicked on; nil for a bare acknowledgement.
    let messageID: String?

    /// The custom id of the button labelled `label`.
    func button(_ label: String) -> String? {
        components.flatMap { $0["components"]?.arrayValue ?? [] }.first { $0["label"]?.stringValue == label }?["custom_id"]?.stringValue
    }

    var labels: [String] {
        components.flatMap { $0["components"]?.arrayValue ?? [] }.compactMap { $0["label"]?.stringValue }
    }

    var description: String { "ack \(ack)\(ephemeral ? " ephemeral" : ""): \(text) \(labels)" }
}
