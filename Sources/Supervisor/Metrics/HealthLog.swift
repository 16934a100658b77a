import Logging

/// The periodic one-line health log (seed 003's health telemetry), every
/// `metrics.healthLogSeconds`; 0 is off.
package struct HealthLog: Sendable {
    package let interval: Int
    package let status: DaemonStatus
    package let logger: Logger

    /// Logs until cancelled; returns at once when off.
    package func run() async {
        guard interval > 0 else { return }
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(interval)) } catch { return }
            let line = HealthLine.text(await status.keyFigures())
            logger.notice("\(line)")
        }
    }
}
