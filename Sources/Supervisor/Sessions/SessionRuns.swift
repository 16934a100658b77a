import FoundationEssentials

/// A session's runs around the one being recorded (`RunRecorder`): which run is active and since
/// when, who prompted it, the last few finished, the run an earlier daemon was cut off in, and
/// whether the observer was told of a change it has not fetched yet. Pure: the session passes
/// the time, saves and tells.
package struct SessionRuns {
    package static let recentKept = 3

    /// The run going on, saved so that a daemon restarted later can say it was cut off.
    package private(set) var active: String?
    /// When the active run started, for `sessions.limits.maxRunSeconds`; nil once it is over,
    /// and for a run a restarted daemon only knows was cut off.
    package private(set) var startedAt: Date?
    package private(set) var last: RunRecord?
    /// The last few runs, newest last, for `/summary`, `/full` and `/resume`.
    package private(set) var recent: [FinishedRun] = []
    /// The run an earlier daemon was in the middle of when it died (its answer never finished).
    package let interrupted: String?
    private var origin: String?
    /// The observer was told that the current run changed and has not fetched it since:
    /// later changes are not told until it has.
    private var changeTold = false

    package init(interrupted: String?) {
        self.interrupted = interrupted
    }

    /// A run started, prompted from `origin`.
    package mutating func started(_ run: RunRecord, origin: String?, at now: Date) {
        changeTold = false
        self.origin = origin
        active = run.runID
        startedAt = now
    }

    /// The current run changed: true when the observer is to be told (it fetched since the last time).
    package mutating func changed() -> Bool {
        guard !changeTold else { return false }
        changeTold = true
        return true
    }

    /// The observer did not take the news, or fetched the run: the next change is told.
    package mutating func changeTaken() {
        changeTold = false
    }

    /// `run` finished at `now`: it is the last, and one of the recent.
    package mutating func finished(_ run: RunRecord, at now: Date) {
        last = run
        recent.append(FinishedRun(run: run, startedAt: startedAt ?? now, endedAt: now, origin: origin))
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        if active == run.runID { startedAt = nil }
    }

    /// The finished run's final is out: true when it is still the active run (none started
    /// since), which then no longer is and the session saves.
    package mutating func ended(_ runID: String) -> Bool {
        guard active == runID else { return false }
        active = nil
        return true
    }
}
