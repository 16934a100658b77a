import Foundation
import PiRelaySDK
import Supervisor
import Testing

/// This machine's side of revoking across a federation: a revocation made here waits until the
/// report numbers it, a pairing here again voids one the database does not have yet, the
/// report's new revocations are taken in once each, and a pairing goes with a revocation only
/// when it is older (or its time does not read).
@Suite struct RevocationsTests {
    static let at = "2026-11-01T08:00:00.000Z"

    @Test func aRevocationWaitsForTheReportThenEachIsTakenInOnce() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/revocations-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var revocations = Revocations(path: Revocations.path(stateDir: folder))
        revocations.record(messenger: "telegram", user: "111", now: Date())
        revocations.record(messenger: "telegram", user: "111", now: Date())
        revocations.record(messenger: "slack", user: "U2", now: Date())
        #expect(revocations.made.map(\.user) == ["111", "U2"], "one per user and messenger, the newest")
        #expect(revocations.forget(messenger: "slack", user: "U2") && !revocations.forget(messenger: "slack", user: "U2"))
        let mine = try #require(revocations.made.first)
        #expect(revocations.unreported(in: []) == [mine])

        let numbered = Revocation(messenger: "telegram", user: "111", stamp: mine.stamp, at: Self.at, number: 4, machine: "laptop")
        let theirs = Revocation(messenger: "telegram", user: "222", stamp: "b", at: Self.at, number: 3, machine: "nas")
        #expect(revocations.take([theirs, numbered]) == [theirs, numbered], "oldest first")
        #expect(revocations.made.isEmpty && revocations.applied == 4 && revocations.unreported(in: [theirs, numbered]).isEmpty)
        #expect(revocations.take([theirs, numbered]).isEmpty, "taken in once")

        try revocations.save()
        let read = try Revocations.load(path: revocations.path)
        #expect(read == revocations)
    }

    @Test func aPairingGoesWithARevocationOnlyWhenItIsOlder() {
        let revocation = Revocation(messenger: "telegram", user: "111", stamp: "a", at: Self.at, number: 1)
        #expect(Revocations.voids(pairedAt: "2026-10-31T08:00:00Z", revocation))
        #expect(Revocations.voids(pairedAt: Self.at, revocation), "the same moment: denied")
        #expect(!Revocations.voids(pairedAt: "2026-11-01T08:00:00.001Z", revocation), "paired again after")
        #expect(Revocations.voids(pairedAt: "", revocation), "a time that does not read: denied")
    }
}
