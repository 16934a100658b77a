/// When a delivery whose handling failed is tried again by the same instance. A messenger throws
/// only for what may pass (the service not reached, a 5xx) and drops what never will, so the
/// lane waits and tries again, keeping its order; pi-relayd would otherwise hand the delivery
/// over again only to a restarted instance, and a final lost to a minute's outage would wait
/// for the next crash. After the last try the lane goes on without it: it stays unacknowledged,
/// for the next instance, so a delivery that always fails holds its lane for about 3 minutes,
/// not for ever.
package enum DeliveryRetry {
    static let delays: [Duration] =
        [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15)]
        + Array(repeating: .seconds(30), count: 5)

    /// The wait before try `failures + 1`, or nil when the delivery has had its tries.
    package static func delay(afterFailures failures: Int) -> Duration? {
        failures >= 1 && failures <= delays.count ? delays[failures - 1] : nil
    }
}
