import PiRelaySDK

/// One finding of `pi-relayd doctor`: what was checked, whether it passed, what was seen, and
/// for a failure what to do about it.
struct DoctorCheck: Sendable, Equatable {
    /// A stable name for scripts (`pi`, `pi-rpc`, `messenger:discord`, `mode:.env`, …).
    let id: String
    let title: String
    let passed: Bool
    let detail: String
    /// The fix, for a failure.
    let fix: String?

    static func pass(_ id: String, _ title: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, passed: true, detail: detail, fix: nil)
    }

    static func fail(_ id: String, _ title: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, passed: false, detail: detail, fix: fix)
    }

    var json: JSONValue {
        var object: JSONValue = ["id": .string(id), "title": .string(title), "passed": .bool(passed), "detail": .string(detail)]
        object["fix"] = fix.map { .string($0) }
        return object
    }

    /// `✓ title: detail`, or `✗ title: detail` with the fix on the next line.
    var text: String {
        guard !passed else { return "✓ \(title): \(detail)" }
        return "✗ \(title): \(detail)" + (fix.map { "\n    fix: \($0)" } ?? "")
    }
}
