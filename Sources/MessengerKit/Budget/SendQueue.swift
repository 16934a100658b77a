import FoundationEssentials

/// A messenger's writes waiting for the platform's budget (`SendAllowance`), chat by chat, in
/// `SendLine`'s order: when a chat's budget allows a write, the most urgent waiting one takes it,
/// so a question never waits behind live edits that came first. Waiting suspends; it never blocks
/// a thread. A live view or a notice goes only while it leaves one write of the chat's budget
/// spare (where the budget has room for it), so a question or a final answer that comes next
/// goes at once instead of waiting for the budget to refill.
public actor SendQueue {
    private enum Outcome {
        case go
        case superseded
        case cancelled
    }

    private let allowance: any SendAllowance
    private let clock: @Sendable () -> Double
    private var line = SendLine()
    private var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
    /// Outcomes decided before their waiter was stored.
    private var decided: [Int: Outcome] = [:]
    /// Chats with a wake-up scheduled, and when.
    private var wakes: [String: Double] = [:]

    /// `clock`: seconds since 1970 (tests pass a fake one).
    public init(allowance: any SendAllowance, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.allowance = allowance
        self.clock = clock
    }

    /// Waits until a write to `chat` may go, and takes its place in the budget. False when a
    /// newer write named the same `replaces` (an edit of the same message) and took its place:
    /// this one must not be sent. Throws `CancellationError` when cancelled while waiting.
    public func turn(chat: String, priority: SendPriority, replaces: String? = nil) async throws -> Bool {
        let (ticket, superseded) = line.arrive(chat: chat, priority: priority, replaces: replaces, now: clock())
        if let superseded { resolve(superseded, .superseded) }
        serve(chat)
        let outcome: Outcome
        if let known = decided.removeValue(forKey: ticket) {
            outcome = known
        } else {
            outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { waiters[ticket] = $0 }
            } onCancel: {
                // Unstructured on purpose: a cancellation handler cannot wait for the actor.
                Task { await self.cancel(chat: chat, ticket: ticket) }
            }
        }
        switch outcome {
        case .go: return true
        case .superseded: return false
        case .cancelled: throw CancellationError()
        }
    }

    /// The budget changed outside the queue (a 429's hold ended early, a test's clock moved):
    /// serve the chat's line again.
    public func refresh(chat: String) {
        serve(chat)
    }

    /// The write to `chat` still waiting that names `replaces` is not to be sent: its `turn`
    /// returns false, as when a newer edit takes its place.
    public func supersede(chat: String, replaces: String) {
        if let ticket = line.drop(chat: chat, replaces: replaces) { resolve(ticket, .superseded) }
    }

    /// Writes waiting for `chat`.
    public func count(chat: String) -> Int { line.count(chat: chat) }

    private func serve(_ chat: String) {
        while let ticket = line.next(chat: chat, now: clock()) {
            let now = clock()
            let spare = line.priority(chat: chat, ticket: ticket) == .answer ? 0 : 1
            let wait = allowance.wait(chat: chat, now: now, keeping: spare)
            guard wait <= 0 else {
                schedule(chat, at: now + wait)
                return
            }
            allowance.take(chat: chat, now: now)
            line.leave(chat: chat, ticket: ticket)
            resolve(ticket, .go)
        }
    }

    /// One wake-up per chat, at the earliest time its budget may allow a write.
    private func schedule(_ chat: String, at time: Double) {
        if let planned = wakes[chat], planned <= time { return }
        wakes[chat] = time
        let delay = max(0, time - clock())
        // Unstructured on purpose: the wake-up belongs to the chat's line, not to any one write;
        // the writes are suspended in `turn` and each can be cancelled on its own.
        Task {
            try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded(.up))))
            self.woke(chat, planned: time)
        }
    }

    private func woke(_ chat: String, planned: Double) {
        guard wakes[chat] == planned else { return }
        wakes[chat] = nil
        serve(chat)
    }

    private func cancel(chat: String, ticket: Int) {
        guard waiters[ticket] != nil else { return }
        line.leave(chat: chat, ticket: ticket)
        resolve(ticket, .cancelled)
    }

    private func resolve(_ ticket: Int, _ outcome: Outcome) {
        if let waiter = waiters.removeValue(forKey: ticket) {
            waiter.resume(returning: outcome)
        } else {
            decided[ticket] = outcome
        }
    }
}
