import FoundationEssentials
import PiRelaySDK

/// A gated tool call, as the extension asks about it: the call and the rule it matched.
package struct ApprovalRequest: Sendable {
    /// The question's id, made by the extension: its terminal dialog answers under it too.
    package let id: String
    package let toolName: String
    package let input: JSONValue
    package let rule: String

    package init(params: JSONValue) throws(RemoteError) {
        guard let id = params["id"]?.stringValue, !id.isEmpty, let toolName = params["toolName"]?.stringValue,
            let rule = params["rule"]?.stringValue
        else { throw RemoteError.invalidParams("approval needs id, toolName and rule") }
        self.id = id
        self.toolName = toolName
        self.rule = rule
        input = params["input"] ?? .object([:])
    }

    /// The call's arguments for a chat and the audit log: secrets redacted, cut to `limit`.
    package func preview(limit: Int = 300) -> String {
        let text: String
        if let command = input["command"]?.stringValue {
            text = command
        } else if let path = input["path"]?.stringValue {
            let size = input["content"]?.stringValue.map { " (\($0.utf8.count) bytes)" } ?? ""
            text = path + size
        } else {
            text = input.serialized()
        }
        let redacted = Redactor.redact(text)
        return redacted.count > limit ? String(redacted.prefix(limit)) + "…" : redacted
    }
}
