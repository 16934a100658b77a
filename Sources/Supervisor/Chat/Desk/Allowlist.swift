import Foundation
import PiRelaySDK

/// Who may use a messenger: `allowedUsers` in its config section plus `<MESSENGER>_ALLOWED_USERS`
/// (comma-separated). Empty means nobody: chat prompts run a shell-capable agent.
struct Allowlist: Sendable {
    let users: Set<String>

    init(section: JSONValue?, messenger: String, environment: [String: String]) {
        var ids = Set<String>()
        for v in section?["allowedUsers"]?.arrayValue ?? [] {
            if let s = v.stringValue { ids.insert(s) } else if let n = v.doubleValue { ids.insert(String(Int64(n))) }
        }
        let envName = messenger.uppercased().replacingOccurrences(of: "-", with: "_") + "_ALLOWED_USERS"
        for part in (environment[envName] ?? "").split(separator: ",") {
            let t = part.trimmingCharacters(in: .whitespaces)
            if !t.isEmpty { ids.insert(t) }
        }
        users = ids
    }

    func allows(_ user: String) -> Bool { users.contains(user) }
}
