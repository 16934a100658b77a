import PiRelaySDK

/// One finding of `pi-relayd doctor`: what was checked, whether it passed, what was seen, and
/// for a failure what to do about it.
package struct DoctorCheck: Sendable, Equatable {
    /// A stable name for scripts (`pi`, `pi-rpc`, `messenger:discord`, `mode:.env`, …).
    package let id: String
    package let title: String
    package let passed: Bool
    package let detail: String
    /// The fix, for a failure.
    package let fix: String?

    package static func pass(_ id: String, _ title: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, passed: true, detail: detail, fix: nil)
    }

    package static func fail(_ id: String, _ title: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, passed: false, detail: detail, fix: fix)
    }

    package var json: JSONValue {
        var object: JSONValue = ["id": .string(id), "title": .string(title), "passed": .bool(passed), "detail": .string(detail)]
        object["fix"] = fix.map { .string($0) }
        return object
    }

    /// `✓ title: detail`, or `✗ title: detail` with the fix on the next line.
    package var text: String {
        guard !passed else { return "✓ \(title): \(detail)" }
        return "✗ \(title): \(detail)" + (fix.map { "\n    fix: \($0)" } ?? "")
    }
}
