import Logging

/// What a plugin slot works with, given by the host: the home, the host's options, the log, the
/// plugin's own stderr log file, and the router its requests go to.
struct PluginSlotServices: Sendable {
    let home: Home
    let options: PluginHostOptions
    let logger: Logger
    let stderrLog: RotatingLog
    let router: any PluginRouter
}
