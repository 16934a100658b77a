import Logging

/// `logs:` — pi-relayd's own log files under `$PI_RELAYD_HOME/logs`.
struct LogSettings: Sendable, Equatable {
    /// `logs.level`: the least severe level written.
    var level: Logger.Level = .info
    /// `logs.maxBytes`: a log file is rotated when it reaches this size.
    var maxBytes = 10_485_760
    /// `logs.keep`: rotated files kept per log (`x.log.1` ... `x.log.<keep>`).
    var keep = 5
}
