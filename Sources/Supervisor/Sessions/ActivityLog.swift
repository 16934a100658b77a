import FoundationEssentials
import PiRelaySDK

/// The session's recent activity as short lines for `/recent`: prompts, tool calls, notices and
/// how runs ended. A ring of at most `limit` lines, apart from the event history (which streamed
/// text would flush out within one long answer).
package struct ActivityLog: Sendable {
    package struct Line: Sendable {
        package var time: Date
        package var text: String
    }

    package static let limit = 200
    /// Characters of one line before it is cut.
    package static let width = 200

    package private(set) var lines: [Line] = []

    package mutating func append(_ text: String, at time: Date = Date()) {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        lines.append(Line(time: time, text: flat.count > Self.width ? String(flat.prefix(Self.width - 1)) + "…" : flat))
        if lines.count > Self.limit { lines.removeFirst(lines.count - Self.limit) }
    }

    package func last(_ count: Int) -> [Line] { Array(lines.suffix(max(0, count))) }

    /// The line for a history record (`PiSession.record(type:_:)`), or nil for records that are
    /// not activity (deltas, message starts…).
    package static func line(type: String, _ preview: JSONValue) -> String? {
        switch type {
        case "tool_execution_start":
            let tool = preview["toolName"]?.stringValue ?? "tool"
            return "🔧 \(tool) \(argument(preview["args"]?.stringValue ?? ""))".trimmingInlineSpace()
        case "tool_execution_end":
            guard preview["isError"]?.boolValue == true else { return nil }
            return "❌ \(preview["toolName"]?.stringValue ?? "tool") failed"
        case "notify": return "ℹ️ \(preview["message"]?.stringValue ?? "")"
        case "extension_error": return "⚠️ \(preview["error"]?.stringValue ?? preview["text"]?.stringValue ?? "extension error")"
        case "auto_retry_start": return "🔁 retrying (attempt \(preview["attempt"]?.intValue ?? 0)): \(preview["errorMessage"]?.stringValue ?? "")"
        case "auto_retry_end" where preview["success"]?.boolValue == false:
            return "⚠️ gave up retrying: \(preview["finalError"]?.stringValue ?? "")"
        case "auto_compaction_start", "compacted": return "🗜 compacting the conversation"
        case "new_conversation": return "🆕 new conversation"
        case "question": return "❓ \(preview["title"]?.stringValue ?? "question")"
        case "question_answered": return "💬 \(preview["by"]?.stringValue ?? "someone") answered: \(preview["answer"]?.stringValue ?? "")"
        case "question_cancelled": return "💬 question cancelled by \(preview["by"]?.stringValue ?? "someone")"
        case "question_expired": return "💬 question expired"
        case "prompt_requeued": return "⏳ waits for the run before it: \(preview["text"]?.stringValue ?? "")"
        case "prompt_rejected": return "⚠️ pi rejected a prompt: \(preview["error"]?.stringValue ?? "")"
        case "run_finished": return "🏁 run ended (\(preview["stopReason"]?.stringValue ?? "done"))"
        case "exited": return "⚠️ pi exited: \(preview["reason"]?.stringValue ?? "")"
        default: return nil
        }
    }

    /// The telling argument of a tool call (its command or path) from the arguments' JSON text,
    /// which may be cut short (history keeps 300 characters of it).
    private static func argument(_ text: String) -> String {
        if let args = try? JSONValue.parse(text) {
            for key in ["command", "path", "pattern", "file_path"] {
                if let value = args[key]?.stringValue { return "`\(value)`" }
            }
            return ""
        }
        return text.isEmpty ? "" : "`\(text.prefix(80))`"
    }
}
