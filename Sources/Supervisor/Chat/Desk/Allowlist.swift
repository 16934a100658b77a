import FoundationEssentials
import PiRelaySDK

/// Who may use a messenger: `allowedUsers` in its config section plus `<MESSENGER>_ALLOWED_USERS`
/// (comma-separated). Empty means nobody: chat prompts run a shell-capable agent.
package struct Allowlist: Sendable {
    package let users: Set<String>

    package init(section: JSONValue?, messenger: String, environment: [String: String]) {
        var ids = Set<String>()
        for value in section?["allowedUsers"]?.arrayValue ?? [] {
            // A number that is no whole id (1e300, 1.5) lets nobody in: the section's schema
            // check says why with its line and column; converting it would trap.
            if let text = value.stringValue {
                ids.insert(text)
            } else if let number = value.doubleValue, let whole = Int64(exactly: number) {
                ids.insert(String(whole))
            }
        }
        for part in (environment[Self.environmentName(messenger)] ?? "").split(separator: ",") {
            let trimmed = part.trimmingInlineSpace()
            if !trimmed.isEmpty { ids.insert(trimmed) }
        }
        users = ids
    }

    package func allows(_ user: String) -> Bool { users.contains(user) }

    /// `my-chat` → `MY_CHAT_ALLOWED_USERS`.
    package static func environmentName(_ messenger: String) -> String {
        messenger.uppercased().replacing("-", with: "_") + "_ALLOWED_USERS"
    }
}
