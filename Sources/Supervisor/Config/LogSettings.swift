import Logging

/// `logs:` — pi-relayd's own log files under `$PI_RELAYD_HOME/logs`.
package struct LogSettings: Sendable, Equatable {
    /// `logs.level`: the least severe level written.
    package var level: Logger.Level = .info
    /// `logs.maxBytes`: a log file is rotated when it reaches this size.
    package var maxBytes = 10_485_760
    /// `logs.keep`: rotated files kept per log (`x.log.1` ... `x.log.<keep>`).
    package var keep = 5
}
