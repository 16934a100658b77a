/// `plugins.restart:` — how a crashed plugin is restarted: exponential backoff with jitter, and a
/// crash loop (too many crashes in a window) marks the plugin failed instead.
struct RestartSettings: Sendable, Equatable {
    /// `initialBackoffMs`: wait before the first restart; doubles on each further crash.
    var initialBackoff: Duration = .milliseconds(500)
    /// `maxBackoffMs`: the doubling stops here.
    var maxBackoff: Duration = .milliseconds(30_000)
    /// `jitter`: each wait is randomly shortened or lengthened by up to this fraction.
    var jitter = 0.2
    /// `crashLoopCount` crashes within `crashLoopWindowSeconds` mark the plugin failed.
    var crashLoopCount = 5
    var crashLoopWindow: Duration = .seconds(180)
    /// `healthyResetSeconds`: a plugin that ran this long is healthy again; its backoff restarts.
    var healthyReset: Duration = .seconds(60)
}
