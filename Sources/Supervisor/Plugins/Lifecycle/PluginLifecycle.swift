import PiRelaySDK

/// A plugin slot's life across its instances: starting, handshaking, running, stopping
/// (draining), backoff, failed, not configured, stopped. A pure state machine in the style of
/// `RestartPolicy`, which it uses: it is told what happened and returns what to do; the slot owns
/// the processes, the clock and the sleeping.
package struct PluginLifecycle: Sendable {
    /// What the slot does once an instance has ended.
    package enum Next: Sendable, Equatable {
        /// Spawn the next instance, after this wait (zero: at once).
        case restart(after: Duration)
        /// A restart was asked for: spawn the next instance now, as no crash.
        case respawn
        /// Wait for a re-arm (`pi-relayd plugins restart`, a new executable); fail what is pending.
        case park(RemoteError)
        /// The slot is done.
        case stop
    }

    /// What a `pi-relayd plugins restart` asks of the slot.
    package enum Restart: Sendable, Equatable {
        /// Wake the parked slot.
        case wake
        /// Shut the running instance down; the slot spawns a new one once it has exited.
        case stopInstance
        case nothing
    }

    package private(set) var state: PluginState = .starting
    /// Why the plugin is not running, or why its last instance ended.
    package private(set) var reason: String?
    package private(set) var restarts = 0
    package private(set) var stopRequested = false
    private var restartRequested = false
    private var policy: RestartPolicy

    package init(options: RestartPolicy.Options) {
        policy = RestartPolicy(options: options)
    }

    /// Failed and not-configured plugins wait for a re-arm instead of being spawned.
    package var isParked: Bool { state == .failed || state == .notConfigured }

    /// A new instance is being spawned.
    package mutating func spawning() {
        state = .starting
        reason = nil
    }

    /// Its hello was accepted: the instance is up as far as the restart policy is concerned.
    package mutating func helloAccepted(at now: ContinuousClock.Instant) {
        state = .handshaking
        policy.started(at: now)
    }

    /// The hello named a protocol this daemon does not speak.
    package mutating func incompatible(_ why: String) {
        reason = why
    }

    /// The welcome and everything that waited are out: new traffic flows.
    package mutating func welcomed() {
        state = .running
    }

    /// The instance ended as `exit` says (`why` for people). `random` in [0, 1) picks the jitter.
    package mutating func instanceEnded(
        _ exit: RestartPolicy.Exit, why: String?, name: String, at now: ContinuousClock.Instant, random: Double
    ) -> Next {
        if let why { reason = why }
        if stopRequested { return .stop }
        if restartRequested {
            restartRequested = false
            return .respawn
        }
        switch policy.exited(exit, at: now, random: random) {
        case .restart(let delay):
            state = .backoff
            restarts += 1
            return .restart(after: delay)
        case .markFailed(let failure):
            state = .failed
            reason = [failure, reason].compactMap { $0 }.joined(separator: "; last exit: ")
            return .park(RemoteError(code: .unavailable, message: "plugin \(name) failed: \(failure)"))
        case .markNotConfigured:
            state = .notConfigured
            if reason == nil { reason = "exit status 78" }
            return .park(RemoteError(code: .unavailable, message: "plugin \(name) is not configured"))
        case .stop:
            state = .stopped
            return .stop
        }
    }

    /// `pi-relayd plugins restart`, or an executable that changed while parked.
    package mutating func restart() -> Restart {
        policy.rearm()
        switch state {
        case .failed, .notConfigured:
            state = .starting
            reason = nil
            return .wake
        case .running, .starting, .handshaking:
            restartRequested = true
            return .stopInstance
        default:
            return .nothing
        }
    }

    /// Stop for good. True when an instance is up and must be shut down.
    package mutating func stop(instanceRunning: Bool) -> Bool {
        stopRequested = true
        state = instanceRunning ? .stopping : .stopped
        return instanceRunning
    }

    /// The slot's loop has ended.
    package mutating func stopped() {
        state = .stopped
    }

    /// Whether the instance that ended was asked to (a stop or a restart), rather than crashing.
    package var endWasRequested: Bool { stopRequested || restartRequested }
}
