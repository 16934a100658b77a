/// When a delivery whose handling failed is tried again by the same instance. pi-relayd hands an
/// unacknowledged delivery over again only to a restarted instance, so a final lost to a
/// minute's outage would wait for the next crash. The lane waits and tries again, keeping its
/// order; after the last try it goes on without it, so one that always fails holds its lane for
/// about 3 minutes, not for ever. Only deliveries in a lane of their own are tried again so
/// (a messenger's chat), never in the default lane that every other delivery and notification
/// shares, and never for an error that cannot pass (bad params, a refused token).
///
/// A delivery whose tries ran out, or that failed in the default lane, for a reason that may
/// pass is parked (`ParkedDeliveries`): tried once more every `parkedEvery`, behind what its lane
/// holds then, until it goes. An outage longer than the tries then costs the message's order,
/// not the message (it would otherwise wait for the plugin's next start, which may be days).
package enum DeliveryRetry {
    /// The waits between tries, and how often parked deliveries are tried again.
    package struct Pace: Sendable {
        package var delays: [Duration]
        package var parkedEvery: Duration

        package init(delays: [Duration], parkedEvery: Duration) {
            self.delays = delays
            self.parkedEvery = parkedEvery
        }

        package static let standard = Pace(
            delays: [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15)]
                + Array(repeating: .seconds(30), count: 5),
            parkedEvery: .seconds(60))
    }

    /// Tests run the plugin with a faster pace; a plugin always has the standard one.
    @TaskLocal package static var pace = Pace.standard

    /// Whether trying again may help: not for the delivery's own fault or a refused token.
    package static func mayPass(_ error: any Error) -> Bool {
        guard let error = error as? RemoteError else { return true }
        return ![.invalidParams, .notAuthorized, .methodNotFound].contains(error.code)
    }

    /// The wait before try `failures + 1`, or nil when the delivery has had its tries.
    package static func delay(afterFailures failures: Int) -> Duration? {
        let delays = pace.delays
        return failures >= 1 && failures <= delays.count ? delays[failures - 1] : nil
    }
}
