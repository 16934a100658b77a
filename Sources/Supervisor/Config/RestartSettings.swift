/// `plugins.restart:` — how a crashed plugin is restarted: exponential backoff with jitter, and a
/// crash loop (too many crashes in a window) marks the plugin failed instead.
package struct RestartSettings: Sendable, Equatable {
    /// `immediateRestarts`: crashes in a row restarted at once, before any backoff.
    package var immediateRestarts = 1
    /// `initialBackoffMs`: the first wait, after the immediate restarts; doubles on each further
    /// crash.
    package var initialBackoff: Duration = .milliseconds(500)
    /// `maxBackoffMs`: the doubling stops here.
    package var maxBackoff: Duration = .milliseconds(30_000)
    /// `jitter`: each wait is randomly shortened or lengthened by up to this fraction.
    package var jitter = 0.2
    /// `crashLoopCount` crashes within `crashLoopWindowSeconds` mark the plugin failed.
    package var crashLoopCount = 5
    package var crashLoopWindow: Duration = .seconds(180)
    /// `healthyResetSeconds`: a plugin that ran this long is healthy again: its next crash is a
    /// first crash, restarted at once (systemd's start-limit interval is 10 s too).
    package var healthyReset: Duration = .seconds(10)
}
