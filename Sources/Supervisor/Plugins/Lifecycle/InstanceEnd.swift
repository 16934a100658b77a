import PiRelaySDK
import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// How one plugin instance ended, worked out from what was seen while it ran: the restart
/// policy's input and the reason shown in `pi-relayd plugins`. Pure.
package struct InstanceEnd: Sendable, Equatable {
    package let exit: RestartPolicy.Exit
    /// Why, for the log and the status; nil for an end that needs no explaining.
    package let reason: String?
    /// Whether requests and deliveries in flight on it count a crash (two make them poison).
    package let crashed: Bool

    /// What was seen of the instance.
    package struct Seen: Sendable {
        package var exit: ChildExit
        package var handshaken = false
        package var incompatible = false
        /// Why the slot killed it (no hello in time, hung…).
        package var killReason: String?
        /// The config section its hello's schema refused, with its line and column.
        package var configRejected: String?
        /// A stop or restart was asked for.
        package var requested = false
        package var stderrTail: [String] = []
    }

    package static func of(_ seen: Seen) -> InstanceEnd {
        // A SIGKILL or SIGTERM the slot did not send for a reason of its own came from outside
        // (the operator, the OOM killer, a stop's escalation): it says nothing of what the plugin
        // was handling, and must not make a good message poison.
        let outside = seen.killReason == nil && (seen.exit == .signaled(SIGKILL) || seen.exit == .signaled(SIGTERM))
        let crashed = (!seen.requested || seen.exit != .exited(0)) && !outside
        if seen.incompatible { return InstanceEnd(exit: .incompatible, reason: nil, crashed: crashed) }
        if let rejected = seen.configRejected { return InstanceEnd(exit: .notConfigured, reason: rejected, crashed: false) }
        if case .spawnFailed(let why) = seen.exit { return InstanceEnd(exit: .crash, reason: why, crashed: crashed) }
        // Not configured (a refused token, say) is the setup's fault, never a message's.
        if seen.exit == .exited(78) {
            // The line that says why, when the plugin marks it: other tasks may log while it ends.
            let why = seen.stderrTail.last { $0.contains(PluginExit.notConfiguredMark) } ?? seen.stderrTail.last
            return InstanceEnd(exit: .notConfigured, reason: why ?? "exit status 78", crashed: false)
        }
        if seen.requested && seen.handshaken { return InstanceEnd(exit: .requested, reason: nil, crashed: crashed) }
        var why = "\(seen.exit)"
        if let kill = seen.killReason {
            why = "\(kill); \(seen.exit)"
        } else if !seen.handshaken {
            why = "exited before its hello (\(seen.exit))"
        }
        let tail = seen.stderrTail.suffix(3).joined(separator: " | ")
        if !tail.isEmpty { why += "; stderr: \(tail)" }
        return InstanceEnd(exit: .crash, reason: why, crashed: crashed)
    }
}
