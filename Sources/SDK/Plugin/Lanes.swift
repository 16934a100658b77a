/// Runs work one item at a time per key (a channel), in arrival order, while different keys
/// proceed in parallel: two prompts typed in a row reach the supervisor in that order.
public actor Lanes {
    private var tails: [String: (serial: Int, task: Task<Void, Never>)] = [:]
    private var serial = 0

    /// A lanes set with nothing running.
    public init() {}

    /// Runs `work` after everything enqueued before under `key`.
    public func enqueue(_ key: String, _ work: @escaping @Sendable () async -> Void) {
        serial += 1
        let mine = serial
        let previous = tails[key]?.task
        // Unstructured on purpose: the gateway reader hands work over and moves on; the chain of
        // tasks per key is what keeps the order.
        let task = Task {
            await previous?.value
            await work()
            self.finished(key, serial: mine)
        }
        tails[key] = (mine, task)
    }

    private func finished(_ key: String, serial: Int) {
        if tails[key]?.serial == serial { tails[key] = nil }
    }
}
