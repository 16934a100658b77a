/// What `ConfigLoader.load` hands the daemon.
package struct LoadedConfig: Sendable, Equatable {
    package var config: Config
    /// `file:line:col: ...` lines to log at start-up: unknown keys, secrets written in config.yaml,
    /// repeated .env entries. None of them holds a secret value.
    package var warnings: [String] = []
    /// What is missing for pi-relayd to be useful, e.g. "discord: no bot token (...)", for the
    /// daemon to print at start-up.
    package var notConfigured: [String] = []
    /// Variables from .env that the process environment does not set: the daemon sets them in
    /// its own environment before starting children.
    package var dotenv: [String: String] = [:]
    /// The config.yaml that was read; nil when there is none.
    package var path: String?
}
