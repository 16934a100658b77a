/// Names the event type of a line too big to read, from its first bytes: pi serialises `type`
/// first (`{"type":"agent_end",...`).
package enum OversizedLine {
    package static func eventType(_ prefix: [UInt8]) -> String? {
        let head = String(decoding: prefix, as: UTF8.self)
        guard let match = head.prefixMatch(of: #/\{\s*"type"\s*:\s*"([a-z_]+)"/#) else { return nil }
        return String(match.1)
    }
}
