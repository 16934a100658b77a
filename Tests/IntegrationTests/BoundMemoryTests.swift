import Foundation
import Testing

/// A pi child that floods its stdout must not grow the daemon: lines are read through a fixed
/// cap (64 MiB for pi) and the history keeps a bounded tail. The peak resident size is sampled
/// while the flood is being read. Serialized: two floods at once would measure each other.
@Suite(.serialized) struct BoundMemoryTests {
    static let mebibyte = 1 << 20
    static let lineCap = 64 * mebibyte

    @Test func aGigabyteOfPiOutputLeavesTheDaemonsMemoryBounded() async throws {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let id = try await s.new(name: "flood")
            try await s.prompt(id, "warm up")
            let before = try #require(SessionMemory.residentBytes(daemon.pid))

            let sampler = BoundMemorySampler(pid: daemon.pid)
            try await s.prompt(id, "!scenario stream 1000", timeout: .seconds(900))
            let (peak, samples) = await sampler.stop()

            let last = try #require(try await s.last(id))
            #expect(last.hasPrefix("Streamed "), "the flood ran to its end: \(last.prefix(200))")
            #expect(samples > 20)
            // Lines are read one at a time and the history is capped at 4 MiB by default: holding
            // even a twentieth of the gigabyte would break this.
            let growth = peak - before
            #expect(
                growth < 48 * Self.mebibyte,
                "resident memory grew by \(growth / Self.mebibyte) MiB (from \(before / Self.mebibyte) MiB) reading 1 GB")
            try await s.prompt(id, "still there?")
            #expect(try await s.last(id) == "Echo: still there?")
        }
    }

    /// `huge 300`: every line of the run is over the cap (the largest 300 MB, the answer's
    /// message_end, turn_end and agent_end about 100 MB each), so all are skipped. The reader
    /// holds at most one line's first 64 MiB, in an array that may briefly exist twice while it
    /// grows; holding a 300 MB line would take well over 300 MB.
    @Test func linesOverTheCapAreSkippedWithoutBeingHeld() async throws {
        let growth = try await Self.peakGrowth(megabytes: 300)
        #expect(growth < 5 * Self.lineCap / 2, "resident memory grew by \(growth / Self.mebibyte) MiB reading 300 MB lines")
    }

    /// `huge 100`: the one 100 MB line is skipped, but the run's message_end, turn_end and
    /// agent_end carry the answer again (about 35 MB each, under the cap), and those are read and
    /// the answer kept. The bound is the cap's budget: one line being read plus what it decodes to.
    @Test func aHundredMegabyteLineStaysWithinTheCapsBudget() async throws {
        let growth = try await Self.peakGrowth(megabytes: 100)
        #expect(growth < 3 * Self.lineCap, "resident memory grew by \(growth / Self.mebibyte) MiB reading a 100 MB line")
    }

    /// Runs `!scenario huge MB` and returns the daemon's peak growth; checks that the over-cap
    /// lines were reported and that relaying goes on.
    static func peakGrowth(megabytes: Int) async throws -> Int {
        try await SessionHome.with { s in
            let daemon = try await s.start()
            let id = try await s.new(name: "huge")
            try await s.prompt(id, "warm up")
            let before = try #require(SessionMemory.residentBytes(daemon.pid))

            let sampler = BoundMemorySampler(pid: daemon.pid)
            try await s.prompt(id, "!scenario huge \(megabytes)", timeout: .seconds(600))
            let (peak, _) = await sampler.stop()

            #expect(s.home.daemonLog.contains("line from pi (over the line cap)"), "the line was skipped and said so")
            // Relaying goes on. (In a new session: the huge answer overflows this one's context,
            // and pi's compact-and-retry after the next prompt has nothing to do with memory.)
            let next = try await s.new(name: "after")
            try await s.prompt(next, "after the huge line")
            #expect(try await s.last(next) == "Echo: after the huge line")
            return peak - before
        }
    }
}
