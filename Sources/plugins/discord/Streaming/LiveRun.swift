/// A run being shown live: its coalescer, the channel, and the task that performs its calls.
struct LiveRun: Sendable {
    var coalescer: Coalescer
    var channel: String
    var driver: Task<Void, Never>?
    /// The driver is waiting out an edit interval (and may be woken by cancellation).
    var sleeping = false
    /// A final arrived: the driver finishes its current call and stops.
    var stopping = false
    var lastUpdate: ContinuousClock.Instant = .now
}
