import Foundation
import Testing

@testable import Supervisor

/// A session's runs around the one being recorded, with a made-up clock.
@Suite struct SessionRunsTests {
    static func run(_ id: String) -> RunRecord { RunRecord(sessionID: "s1", sessionName: "api", runID: id) }
    static let t0 = Date(timeIntervalSince1970: 1_000)

    @Test func aFinishedRunIsKeptWithWhoAskedAndHowLongItTook() {
        var runs = SessionRuns(interrupted: "r0")
        #expect(runs.interrupted == "r0")
        runs.started(Self.run("r1"), origin: "telegram:42", at: Self.t0)
        #expect(runs.active == "r1")
        #expect(runs.startedAt == Self.t0)
        runs.finished(Self.run("r1"), at: Self.t0.addingTimeInterval(12))
        #expect(runs.startedAt == nil)
        #expect(runs.last?.runID == "r1")
        #expect(runs.recent.first?.origin == "telegram:42")
        #expect(runs.recent.first?.duration == 12)
        let ended = runs.ended("r1")
        let again = runs.ended("r1")
        #expect(ended && !again)
        #expect(runs.active == nil)
    }

    @Test func aRunStartedWhileTheLastFinalWentOutStaysActive() {
        var runs = SessionRuns(interrupted: nil)
        runs.started(Self.run("r1"), origin: nil, at: Self.t0)
        runs.finished(Self.run("r1"), at: Self.t0)
        runs.started(Self.run("r2"), origin: "terminal", at: Self.t0.addingTimeInterval(1))
        let ended = runs.ended("r1")
        #expect(!ended)
        #expect(runs.active == "r2")
        #expect(runs.startedAt != nil)
    }

    @Test func onlyTheLastFewRunsAreKept() {
        var runs = SessionRuns(interrupted: nil)
        for index in 1...(SessionRuns.recentKept + 2) {
            runs.started(Self.run("r\(index)"), origin: nil, at: Self.t0)
            runs.finished(Self.run("r\(index)"), at: Self.t0)
        }
        #expect(runs.recent.map(\.run.runID) == (3...(SessionRuns.recentKept + 2)).map { "r\($0)" })
    }

    @Test func aChangeIsToldOnceUntilTheObserverFetchesTheRun() {
        var runs = SessionRuns(interrupted: nil)
        runs.started(Self.run("r1"), origin: nil, at: Self.t0)
        let first = runs.changed()
        let second = runs.changed()
        #expect(first && !second)
        runs.changeTaken()
        let afterFetch = runs.changed()
        #expect(afterFetch)
        runs.started(Self.run("r2"), origin: nil, at: Self.t0)
        let newRun = runs.changed()
        #expect(newRun, "a new run is told at once")
    }
}
