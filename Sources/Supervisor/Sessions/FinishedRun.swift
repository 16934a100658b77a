import FoundationEssentials

/// A run that has ended, with its times, kept by its session for `/summary`, `/full` and the
/// summary `/resume` shows.
package struct FinishedRun: Sendable {
    package let run: RunRecord
    package let startedAt: Date
    package let endedAt: Date
    /// Who asked for it: a chat's key (or `terminal`, a control-socket client), if known.
    package let origin: String?

    package var duration: Double { max(0, endedAt.timeIntervalSince(startedAt)) }
}
