/// Throttles live views of one run: at most one formatter call in flight and one update per
/// interval, always ending with the newest state. The messenger coalesces edits further.
///
/// It holds no copy of the run between views: the session's run then grows in place, and the
/// newest state is fetched from the session when a view is due.
package struct LiveFeed: Sendable {
    /// Where the newest state of the run is fetched (`PiSession.liveRun`).
    package let session: PiSession
    /// When the run first changed: its first view's delay is what a user waits for.
    package let firstChangeAt = ContinuousClock.now
    package var lastSent: ContinuousClock.Instant?
    /// The pace of the fastest messenger watching the run, as of the last view: slower ones
    /// keep the newest view and edit at their own pace.
    package var interval = MessengerTraits.defaultLiveInterval
    package var sentRevision = -1
    package var scheduled = false
    package var inFlight = false
    /// The run changed after the view in flight was fetched.
    package var changedInFlight = false
    package var rev = 0
    /// Times a chat began to want views again (`ChatDelivery.viewsWanted`): a view in flight
    /// since then does not start the interval.
    package var wantedAgain = 0
}
