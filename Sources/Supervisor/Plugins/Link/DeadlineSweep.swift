/// One timer for the earliest of many deadlines (a plugin slot's pending requests): a timer task
/// for every request (50 a second while sessions stream) woke two threads each. Arming it for a
/// deadline no earlier than the one set does nothing; an earlier one replaces it.
struct DeadlineSweep {
    private var task: Task<Void, Never>?
    private var armedAt: ContinuousClock.Instant?

    /// Runs `due` at `deadline`, unless the timer is already set for then or sooner.
    mutating func arm(for deadline: ContinuousClock.Instant, _ due: @escaping @Sendable () async -> Void) {
        if let armedAt, armedAt <= deadline { return }
        task?.cancel()
        armedAt = deadline
        // Unstructured on purpose: a one-shot timer owned by the slot, replaced when an earlier
        // deadline comes; `due` holds the slot weakly, so a slot that is gone is not kept.
        task = Task {
            do { try await Task.sleep(until: deadline) } catch { return }
            await due()
        }
    }

    /// The timer went off: nothing is armed until the next `arm`.
    mutating func fired() {
        task = nil
        armedAt = nil
    }
}
