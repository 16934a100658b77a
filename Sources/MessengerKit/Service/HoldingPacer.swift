import Logging
import PiRelaySDK

/// A service client's pacer that keeps the holds a 429 set (by chat, by method) and knows when
/// this process started pacing. Saved in the plugin's state (`holds.json`) so a restarted plugin
/// still waits out the service's `Retry-After`.
public protocol HoldingPacer: Codable, Sendable {
    init()
    /// When each held key may be used again, in seconds since 1970.
    var holds: [String: Double] { get set }
    /// Takes what else of the saved pacer still holds (the buckets it had spent); nothing by default.
    mutating func keep(from saved: Self)
}

extension HoldingPacer {
    public mutating func keep(from saved: Self) {}

    /// A pacer started now, with the holds a previous run saved that have not ended.
    public static func restored(from store: StateStore?, file: String, now: Double, logger: Logger) -> Self {
        var pacer = Self()
        guard let saved = store?.load(Self.self, from: file) else { return pacer }
        pacer.holds = saved.holds.filter { $0.value > now }
        pacer.keep(from: saved)
        if !pacer.holds.isEmpty {
            logger.info("rate limits: the previous run left \(pacer.holds.keys.sorted().joined(separator: ", ")) on hold after a 429")
        }
        return pacer
    }
}
