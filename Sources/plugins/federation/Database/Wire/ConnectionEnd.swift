import Synchronization

/// Why a connection ended, kept where its owner can read it: a request written after the
/// channel closed never reaches the handler that saw the reason (a refused certificate, the
/// server's FATAL), and must still be told it.
final class ConnectionEnd: Sendable {
    private let reason = Mutex<WireError?>(nil)

    var current: WireError? { reason.withLock { $0 } }

    /// Keeps the first reason; later ones are consequences of it.
    func record(_ error: WireError) {
        reason.withLock { if $0 == nil { $0 = error } }
    }
}
