import Foundation
import PiRelaySDK

extension Relay {
    /// Sends a prompt, steer or follow-up. A prompt always carries `streamingBehavior`, so a busy
    /// agent queues it instead of refusing it. Other chats are shown `echo` (default: the text).
    func prompt(
        _ s: PiSession, kind: String, text: String, images: [JSONValue], origin: String,
        echo: String? = nil
    ) async throws -> JSONValue {
        try await s.ensureRunning()
        var fields: JSONValue = ["message": .string(text)]
        if !images.isEmpty { fields["images"] = .array(images) }
        let type: String
        switch kind {
        case "steer": type = "steer"
        case "follow-up": type = "follow_up"
        default:
            type = "prompt"
            fields["streamingBehavior"] = .string(busyBehavior)
        }
        let wasBusy = await s.state == .busy
        _ = try await s.command(type, fields, timeout: .seconds(60))
        await session(s.id, did: .promptEcho(text: echo ?? text, origin: origin))
        let status =
            kind == "send" ? (wasBusy ? (busyBehavior == "steer" ? "steered" : "queued") : "prompted") : (kind == "steer" ? "steered" : "queued")
        return ["status": .string(status), "session": .string(s.id)]
    }

    /// What other chats see of a prompt with attachments: the user's words and the file names.
    /// The prompt itself carries the attachments' content (a text file inlined whole), which
    /// would flood a chat.
    static func echo(_ text: String, attachments names: [String]) -> String {
        names.isEmpty ? text : text + "\n📎 " + names.joined(separator: ", ")
    }
}
