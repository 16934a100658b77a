import PiRelaySDK

extension RunView {
    /// Reads a run view from request params. Unknown item kinds are skipped; text is normalised
    /// to LF line ends here, once, so everything downstream can split on LF only.
    init(json: JSONValue) throws(RemoteError) {
        guard case .object = json else { throw RemoteError.invalidParams("run must be an object") }
        let rawItems: [JSONValue]
        switch json["items"] {
        case nil, .null?: rawItems = []
        case .array(let a)?: rawItems = a
        default: throw RemoteError.invalidParams("run.items must be an array")
        }
        var items: [RunItem] = []
        items.reserveCapacity(rawItems.count)
        for raw in rawItems {
            switch raw["kind"]?.stringValue {
            case "text": items.append(.text(Self.normalised(raw["text"]?.stringValue ?? "")))
            case "thinking": items.append(.thinking(Self.normalised(raw["text"]?.stringValue ?? "")))
            case "tools":
                let calls = (raw["calls"]?.arrayValue ?? []).map(ToolCall.init(json:))
                items.append(.tools(calls))
            case "notice":
                items.append(
                    .notice(
                        NoticeKind(wireName: raw["notice"]?.stringValue ?? "info"),
                        Self.normalised(raw["text"]?.stringValue ?? "")))
            default: continue
            }
        }
        self.init(
            sessionID: json["sessionId"]?.stringValue, sessionName: json["sessionName"]?.stringValue,
            runID: json["runId"]?.stringValue, done: json["done"]?.boolValue ?? false, items: items,
            stopReason: json["stopReason"]?.stringValue, errorMessage: json["errorMessage"]?.stringValue)
    }

    /// CR LF and lone CR become LF. A CR at the very end becomes LF too, so text streamed in
    /// pieces normalises to a prefix of the whole text's normalisation.
    static func normalised(_ text: String) -> String {
        guard text.utf8.contains(0x0D) else { return text }
        return text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
    }
}
