/// One step of `pi-relayd plugin check`: passed, failed (saying what it expected and what it
/// got), or skipped because the driver cannot do what it needs. A skipped step is never counted
/// as passed.
struct CheckStep: Sendable, Equatable {
    enum Outcome: String, Sendable {
        case passed, failed, skipped
    }

    var name: String
    var outcome: Outcome
    var detail: String

    static func passed(_ name: String, _ detail: String = "") -> CheckStep {
        CheckStep(name: name, outcome: .passed, detail: detail)
    }

    static func failed(_ name: String, _ detail: String) -> CheckStep {
        CheckStep(name: name, outcome: .failed, detail: detail)
    }

    /// The driver cannot play this step (no driver, or the service cannot do it).
    static func skipped(_ name: String, _ why: String) -> CheckStep {
        CheckStep(name: name, outcome: .skipped, detail: "skipped (driver): \(why)")
    }

    /// Passed when `ok`, else failed with `failure`.
    static func judged(_ name: String, _ ok: Bool, _ failure: @autoclosure () -> String, passed detail: String = "") -> CheckStep {
        ok ? .passed(name, detail) : .failed(name, failure())
    }

    var passed: Bool { outcome == .passed }

    /// One line of the report: ✓, ✗ or –, the name, and the detail.
    var line: String {
        let mark = outcome == .passed ? "✓" : outcome == .failed ? "✗" : "–"
        return "\(mark) \(name)\(detail.isEmpty ? "" : ": " + detail)"
    }
}
