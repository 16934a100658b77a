import PiRelaySDK

/// The one-line summary of a tool call: a status mark, then what the call did, with long
/// arguments elided in the middle. Everything taken from the call is redacted before it is cut,
/// so elision can never leave half a secret that no rule recognises.
struct ToolSummary {
    let call: RunView.ToolCall
    /// The most characters one argument may take.
    let argumentWidth: Int
    let redactor: Redactor

    static let doneMark = "🔧"
    static let failedMark = "❌"
    static let runningMark = "⏳"

    var line: String { mark + " " + body }

    var mark: String { call.isError ? Self.failedMark : (call.done ? Self.doneMark : Self.runningMark) }

    var body: String {
        switch call.name {
        case "bash": return bash
        case "read": return read
        case "edit": return edit
        case "write": return write
        case "grep", "find": return search
        case "ls": return list
        default: return generic
        }
    }

    /// A string argument, if the model passed one.
    func string(_ key: String) -> String? {
        switch call.args[key] {
        case .string(let value)?: return value
        case .number?, .bool?: return call.args[key]?.serialized()
        default: return nil
        }
    }

    func int(_ key: String) -> Int? {
        if let value = call.args[key]?.intValue { return value }
        return call.args[key]?.stringValue.flatMap { Int($0) }
    }

    /// An argument made safe to show: redacted, on one line, elided, in a code span.
    func code(_ text: String, width: Int? = nil) -> String {
        InlineCode.wrap(redactor.redact(text).singleLine.elidingMiddle(to: width ?? argumentWidth))
    }
}
