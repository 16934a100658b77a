import SupervisorIO

/// Where a session's commands to pi go: a spawned pi's stdin (`ChildInput`) or the socket of an
/// attached terminal pi's extension (`TerminalLink`). Neither blocks the caller.
package protocol PiInput: AnyObject, Sendable {
    /// One JSON line, LF included.
    func send(_ line: [UInt8])
    /// No more commands: close stdin, or end the attach connection.
    func finish()
}

extension ChildInput: PiInput {}
