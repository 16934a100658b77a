import FoundationEssentials

/// A run that has ended, with its times, kept by its session for `/summary`, `/full` and the
/// summary `/resume` shows.
struct FinishedRun: Sendable {
    let run: RunRecord
    let startedAt: Date
    let endedAt: Date
    /// Who asked for it: a chat's key (or `terminal`, a control-socket client), if known.
    let origin: String?

    var duration: Double { max(0, endedAt.timeIntervalSince(startedAt)) }
}
