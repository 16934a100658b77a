import PiRelaySDK
import Supervisor
import Testing

/// What `status` says of a federation, from the plugin's last report: nothing without one, the
/// machines online or since when offline, the database's outage, a refusal, and a stale report.
@Suite struct MachineDirectoryTests {
    @Test func theStatusLineFollowsTheLastReport() {
        let directory = MachineDirectory()
        let start = ContinuousClock.now
        #expect(directory.statusLine(now: start) == nil, "no federation, no line")
        directory.update(FederationReport(), at: start)
        #expect(directory.statusLine(now: start) == "federation: no other machine yet")
        directory.update(
            FederationReport(machines: [
                MachineSummary(name: "desktop", online: true, lastSeen: "2026-11-26T08:00:00Z"),
                MachineSummary(name: "nas", online: false, lastSeen: "2026-11-26T07:00:00Z"),
            ]), at: start)
        #expect(directory.statusLine(now: start) == "federation: desktop online, nas offline since 2026-11-26T07:00:00Z")
        #expect(
            directory.statusLine(now: start + .seconds(31))
                == "federation: desktop online, nas offline since 2026-11-26T07:00:00Z (reported 31s ago: is the federation plugin running?)")
        directory.update(FederationReport(unreachableSince: "2026-11-26T08:01:00Z"), at: start)
        #expect(directory.statusLine(now: start) == "federation: database unreachable since 2026-11-26T08:01:00Z")
        directory.update(FederationReport(unreachableSince: "2026-11-26T08:01:00Z", problem: "connection refused"), at: start)
        #expect(directory.statusLine(now: start) == "federation: database unreachable since 2026-11-26T08:01:00Z (connection refused)")
        directory.update(FederationReport(problem: "another daemon runs as machine \"desktop\""), at: start)
        #expect(directory.statusLine(now: start) == "federation: another daemon runs as machine \"desktop\"")
        #expect(directory.json(now: start + .seconds(3))?["reportedSecondsAgo"] == 3)
    }

    /// Who each machine published for each messenger: looked up for one machine (a request from
    /// its own bot), and together for the bots every machine shares.
    @Test func theAllowlistsTheMachinesPublishedAreLookedUp() {
        let directory = MachineDirectory()
        #expect(!directory.allows("111", messenger: "telegram", on: "laptop") && directory.allowlists(of: ["telegram"]).isEmpty)
        directory.update(
            FederationReport(machines: [
                MachineSummary(name: "laptop", online: false, lastSeen: "x", allowed: ["telegram": ["111", "222"], "slack": ["UALICE"]]),
                MachineSummary(name: "nas", online: true, lastSeen: "x", allowed: ["telegram": ["333"]]),
            ]))
        #expect(directory.allows("111", messenger: "telegram", on: "laptop"))
        #expect(!directory.allows("111", messenger: "telegram", on: "nas") && !directory.allows("111", messenger: "slack", on: "laptop"))
        #expect(directory.allowlists(of: ["telegram"]) == ["telegram": ["111", "222", "333"]])
        #expect(directory.allowlists(of: ["discord"]).isEmpty)
    }

    /// A user revoked after the last revocation a machine took in is not let in by its list: it
    /// has not dropped them yet, or it is offline. Once it has taken the revocation in, what it
    /// publishes counts again (a pairing made after, or its config.yaml).
    @Test func aRevokedUserCountsOnlyFromMachinesThatTookTheRevocationIn() {
        let directory = MachineDirectory()
        let revoked = Revocation(messenger: "telegram", user: "111", stamp: "s", at: "2026-11-01T08:00:00.000Z", number: 7, machine: "laptop")
        directory.update(
            FederationReport(
                machines: [
                    MachineSummary(name: "nas", online: false, lastSeen: "x", allowed: ["telegram": ["111", "222"]], revocationsApplied: 6),
                    MachineSummary(
                        name: "desktop", online: true, lastSeen: "x", allowed: ["telegram": ["333"], "slack": ["111"]], revocationsApplied: 6),
                ], revocations: [revoked]))
        #expect(
            directory.allowlists(of: ["telegram", "slack"]) == ["telegram": ["222", "333"], "slack": ["111"]],
            "another messenger's 111 is another user")
        #expect(!directory.allows("111", messenger: "telegram", on: "nas") && directory.allows("222", messenger: "telegram", on: "nas"))
        directory.update(
            FederationReport(
                machines: [MachineSummary(name: "desktop", online: true, lastSeen: "x", allowed: ["telegram": ["111"]], revocationsApplied: 7)],
                revocations: [revoked]))
        #expect(directory.allowlists(of: ["telegram"]) == ["telegram": ["111"]])
    }
}
