/// Throttles live views of one run: at most one formatter call in flight and one update per
/// interval, always ending with the newest state. The messenger coalesces edits further.
struct LiveFeed: Sendable {
    var latest: RunRecord
    var lastSent: ContinuousClock.Instant?
    var sentRevision = -1
    var scheduled = false
    var inFlight = false
    var rev = 0
}
