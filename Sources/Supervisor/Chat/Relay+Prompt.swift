import Foundation
import PiRelaySDK

extension Relay {
    /// Sends a prompt, steer or follow-up. A prompt always carries `streamingBehavior`, so a busy
    /// agent queues it instead of refusing it.
    func prompt(_ s: PiSession, kind: String, text: String, images: [JSONValue], origin: String) async throws -> JSONValue {
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
        await session(s.id, did: .promptEcho(text: text, origin: origin))
        let status = kind == "send" ? (wasBusy ? (busyBehavior == "steer" ? "steered" : "queued") : "prompted") : (kind == "steer" ? "steered" : "queued")
        return ["status": .string(status), "session": .string(s.id)]
    }
}
