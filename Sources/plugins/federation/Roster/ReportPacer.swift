/// When the federation plugin tells its supervisor about the other machines: at once when the
/// report changed, and at least every `refresh` otherwise, so the supervisor can tell a quiet
/// federation from a plugin that stopped reporting (`MachineDirectory.staleAfter`).
struct ReportPacer<Report: Equatable & Sendable>: Sendable {
    let refresh: Duration
    private var sent: Report?
    private var sentAt: ContinuousClock.Instant?

    init(refresh: Duration = .seconds(10)) {
        self.refresh = refresh
    }

    /// Whether `report` goes out now; if so it counts as sent.
    mutating func shouldSend(_ report: Report, now: ContinuousClock.Instant) -> Bool {
        if let sent, sent == report, let sentAt, now - sentAt < refresh { return false }
        sent = report
        sentAt = now
        return true
    }
}
