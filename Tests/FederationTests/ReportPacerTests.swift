import Testing

@testable import FederationPlugin

/// The supervisor hears of the other machines at once when anything changed, and at least
/// every ten seconds, so it can tell a quiet federation from a silent plugin.
@Suite struct ReportPacerTests {
    @Test func aChangeGoesOutAtOnceAndTheSameReportOnlyAfterTheRefresh() {
        var pacer = ReportPacer<String>(refresh: .seconds(10))
        let start = ContinuousClock.now
        let sent = [
            ("desktop online", 0), ("desktop online", 2), ("desktop offline", 4), ("desktop offline", 13), ("desktop offline", 14),
        ].map { pacer.shouldSend($0.0, now: start + .seconds($0.1)) }
        // The first report, not the same two seconds on, a change at once, not the same nine
        // seconds on, and the same again ten seconds after the last one sent.
        #expect(sent == [true, false, true, false, true])
    }
}
