import Synchronization

/// Samples a process's resident memory every few milliseconds in the background and keeps the
/// peak: the moment a flood is being read is the moment that counts, not the quiet after it.
final class BoundMemorySampler: Sendable {
    let pid: Int32
    private let peak = Mutex<Int>(0)
    private let samples = Mutex<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(pid: Int32, every interval: Duration = .milliseconds(20)) {
        self.pid = pid
        let started = Task { [self] in
            while !Task.isCancelled {
                if let rss = SessionMemory.residentBytes(pid) {
                    peak.withLock { $0 = max($0, rss) }
                    samples.withLock { $0 += 1 }
                }
                try? await Task.sleep(for: interval)
            }
        }
        task.withLock { $0 = started }
    }

    /// Stops sampling; the peak and how many samples it is the maximum of.
    func stop() async -> (peak: Int, samples: Int) {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        return (peak.withLock { $0 }, samples.withLock { $0 })
    }
}
