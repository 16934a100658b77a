/// Names the event type of a line too big to read, from its first bytes: pi serialises `type`
/// first (`{"type":"agent_end",...`).
enum OversizedLine {
    static func eventType(_ prefix: [UInt8]) -> String? {
        let head = String(decoding: prefix, as: UTF8.self)
        guard let range = head.range(of: #"^\{\s*"type"\s*:\s*"([a-z_]+)""#, options: .regularExpression) else { return nil }
        let match = head[range]
        guard let quote = match.dropLast().lastIndex(of: "\"") else { return nil }
        return String(match[match.index(after: quote)..<match.index(before: match.endIndex)])
    }
}
