/// What a messenger received while it stood by for another machine (a federation's lease), for
/// a service that sends every message to every connection (Discord). When this machine takes
/// the bot, it acts on the recent ones, and the federation's claims drop those the previous
/// holder acted on: so the messages a holder took in but never passed on before it froze or
/// died reach a session all the same.
public struct StandbyBuffer<Message: Sendable>: Sendable {
    /// Well past a takeover (about 20 s after a holder's death); older messages were the
    /// holder's while it renewed its lease.
    public static var keepFor: Duration { .seconds(60) }
    public static var capacity: Int { 1000 }

    private var held: [(message: Message, at: ContinuousClock.Instant)] = []

    public init() {}

    public var count: Int { held.count }

    public mutating func hold(_ message: Message, at now: ContinuousClock.Instant) {
        held.removeAll { now - $0.at > Self.keepFor }
        held.append((message, now))
        if held.count > Self.capacity { held.removeFirst(held.count - Self.capacity) }
    }

    /// The messages held within `keepFor`, oldest first; none are held after.
    public mutating func release(at now: ContinuousClock.Instant) -> [Message] {
        defer { held = [] }
        return held.filter { now - $0.at <= Self.keepFor }.map(\.message)
    }
}
