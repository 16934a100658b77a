import FoundationEssentials
import PiRelaySDK

/// The branch checked out in a session's folder, for `/status`.
package enum GitBranch {
    package static func current(in dir: String) -> String? {
        guard let head = try? String(contentsOfFile: dir + "/.git/HEAD", encoding: .utf8) else { return nil }
        let trimmed = head.trimmed()
        if trimmed.hasPrefix("ref: refs/heads/") { return String(trimmed.dropFirst("ref: refs/heads/".count)) }
        return String(trimmed.prefix(10)) + " (detached)"
    }
}
