/// One step of `pi-relayd plugin check`: passed, failed (saying what it expected and what it
/// got), or skipped because the driver cannot do what it needs. A skipped step is never counted
/// as passed.
package struct CheckStep: Sendable, Equatable {
    package enum Outcome: String, Sendable {
        case passed, failed, skipped
    }

    package var name: String
    package var outcome: Outcome
    package var detail: String

    package static func passed(_ name: String, _ detail: String = "") -> CheckStep {
        CheckStep(name: name, outcome: .passed, detail: detail)
    }

    package static func failed(_ name: String, _ detail: String) -> CheckStep {
        CheckStep(name: name, outcome: .failed, detail: detail)
    }

    /// The driver cannot play this step (no driver, or the service cannot do it).
    package static func skipped(_ name: String, _ why: String) -> CheckStep {
        CheckStep(name: name, outcome: .skipped, detail: "skipped (driver): \(why)")
    }

    /// Passed when `ok`, else failed with `failure`.
    package static func judged(_ name: String, _ ok: Bool, _ failure: @autoclosure () -> String, passed detail: String = "") -> CheckStep {
        ok ? .passed(name, detail) : .failed(name, failure())
    }

    package var passed: Bool { outcome == .passed }

    /// One line of the report: ✓, ✗ or –, the name, and the detail.
    package var line: String {
        let mark = outcome == .passed ? "✓" : outcome == .failed ? "✗" : "–"
        return "\(mark) \(name)\(detail.isEmpty ? "" : ": " + detail)"
    }
}
