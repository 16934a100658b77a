import PiRelaySDK

/// What a running child reports, in order.
package enum ChildEvent: Sendable {
    case started(pid: Int32)
    /// A line, or the end of input. Oversize lines come as `stdoutOversized`.
    case stdout(LineFramer.Event)
    /// A line over the cap was skipped; `prefix` is its first bytes.
    case stdoutOversized(bytes: Int, prefix: [UInt8])
    case stderr(String)
    case exited(ChildExit)
}

/// How a child ended.
package enum ChildExit: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)
    /// It never ran: not found, not executable, bad cwd.
    case spawnFailed(String)

    package var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "killed by signal \(signal) (\(ChildExit.signalName(signal)))"
        case .spawnFailed(let why): return "could not start: \(why)"
        }
    }

    package static func signalName(_ signal: Int32) -> String {
        switch signal {
        case 1: return "SIGHUP"
        case 2: return "SIGINT"
        case 6: return "SIGABRT"
        case 9: return "SIGKILL"
        case 11: return "SIGSEGV"
        case 13: return "SIGPIPE"
        case 15: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }
}

/// Where a child's events go; `yield` must not block.
package struct ChildEventSink: Sendable {
    package let yield: @Sendable (ChildEvent) -> Void
    package func yield(_ event: ChildEvent) { yield(event) }

    package init(yield: @escaping @Sendable (ChildEvent) -> Void) {
        self.yield = yield
    }
}
