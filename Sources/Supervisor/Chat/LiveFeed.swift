/// Throttles live views of one run: at most one formatter call in flight and one update per
/// interval, always ending with the newest state. The messenger coalesces edits further. It
/// keeps the newest revision, not the run: the run is fetched from its session when a view is
/// rendered, so between views the session's copy is the only one and grows in place.
struct LiveFeed: Sendable {
    let sessionID: String
    var latestRevision: Int
    var lastSent: ContinuousClock.Instant?
    var sentRevision = -1
    var scheduled = false
    var inFlight = false
    var rev = 0

    init(sessionID: String, latestRevision: Int) {
        self.sessionID = sessionID
        self.latestRevision = latestRevision
    }
}
