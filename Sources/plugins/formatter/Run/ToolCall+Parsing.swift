import PiRelaySDK

extension ToolCall {
    init(json: JSONValue) {
        self.init(
            id: json["id"]?.stringValue ?? "",
            name: json["name"]?.stringValue ?? "tool",
            args: json["args"] ?? [:],
            done: json["done"]?.boolValue ?? true,
            isError: json["isError"]?.boolValue ?? false,
            output: RunView.normalised(json["output"]?.stringValue ?? ""),
            details: json["details"] ?? [:])
    }
}
