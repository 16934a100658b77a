import PiRelaySDK

/// One of the bot's messages as the driver reports it (docs/PROTOCOL.md §10, the `posts` op).
package struct CheckPost: Sendable, Equatable {
    package var id: String
    package var text: String
    package var buttons: [String]
    package var edits: Int

    package init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue ?? json["id"]?.intValue.map(String.init), let text = json["text"]?.stringValue else {
            return nil
        }
        self.id = id
        self.text = text
        buttons = (json["buttons"]?.arrayValue ?? []).compactMap(\.stringValue)
        edits = json["edits"]?.intValue ?? 0
    }

    /// For a failed step's detail: `#ID “text…” [buttons] edited N×`.
    package var summary: String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "#\(id) “\(shown.replacing("\n", with: " "))”" + (buttons.isEmpty ? "" : " [\(buttons.joined(separator: ", "))]")
            + (edits > 0 ? " edited \(edits)×" : "")
    }
}
