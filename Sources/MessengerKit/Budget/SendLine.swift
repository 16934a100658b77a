/// The writes waiting for chats' budgets, as a pure state machine. When a chat's budget allows a
/// write, the most urgent waiting one goes and, among equals, the first to come. A write ranks
/// one step more urgent for every `aging` seconds it has waited, so notices still go while a run
/// streams without end. A waiting write may name what it replaces (an edit of one message): a
/// newer one takes its place, and the older is told it is superseded.
public struct SendLine: Sendable {
    private struct Waiter: Sendable {
        var ticket: Int
        var priority: SendPriority
        var replaces: String?
        var since: Double
    }

    /// Seconds of waiting that make a write one step more urgent.
    public let aging: Double
    private var waiting: [String: [Waiter]] = [:]
    private var nextTicket = 0

    public init(aging: Double = 5) {
        self.aging = aging
    }

    /// A write to `chat` joins the line at `now`; returns its ticket, and the ticket it superseded.
    public mutating func arrive(
        chat: String, priority: SendPriority, replaces: String? = nil, now: Double
    ) -> (ticket: Int, superseded: Int?) {
        nextTicket += 1
        var line = waiting[chat] ?? []
        var superseded: Int?
        if let replaces, let index = line.firstIndex(where: { $0.replaces == replaces }) {
            superseded = line.remove(at: index).ticket
        }
        line.append(Waiter(ticket: nextTicket, priority: priority, replaces: replaces, since: now))
        waiting[chat] = line
        return (nextTicket, superseded)
    }

    /// The write that goes next to `chat` when its budget allows one at `now`.
    public func next(chat: String, now: Double) -> Int? {
        guard let line = waiting[chat] else { return nil }
        // The first of the most urgent: the line is in arrival order.
        return line.min { rank($0, now) < rank($1, now) }?.ticket
    }

    private func rank(_ waiter: Waiter, _ now: Double) -> Int {
        waiter.priority.rawValue - Int(max(0, now - waiter.since) / aging)
    }

    /// Takes out the waiting write that names `replaces`, and returns its ticket (nil: none waits).
    public mutating func drop(chat: String, replaces: String) -> Int? {
        guard let index = waiting[chat]?.firstIndex(where: { $0.replaces == replaces }) else { return nil }
        let ticket = waiting[chat]?.remove(at: index).ticket
        if waiting[chat]?.isEmpty == true { waiting[chat] = nil }
        return ticket
    }

    /// How urgent a waiting write was when it came (nil when it is not waiting).
    public func priority(chat: String, ticket: Int) -> SendPriority? {
        waiting[chat]?.first { $0.ticket == ticket }?.priority
    }

    /// The ticket went, or left the line (cancelled).
    public mutating func leave(chat: String, ticket: Int) {
        waiting[chat]?.removeAll { $0.ticket == ticket }
        if waiting[chat]?.isEmpty == true { waiting[chat] = nil }
    }

    /// How many writes wait for `chat`.
    public func count(chat: String) -> Int { waiting[chat]?.count ?? 0 }
}
