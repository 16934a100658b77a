/// Chat text read as a slash command, `/name rest`, as pi-relayd reads it: the slash, then the
/// first word (spaces after the slash are skipped, so `/ new` is `new`), then the rest. One
/// reading for the supervisor and for a plugin that must refuse what the supervisor would run.
package struct CommandText: Sendable, Equatable {
    /// The command's name, lowercased, without the slash.
    package var name: String
    /// What follows the name, inline space trimmed (newlines kept).
    package var rest: String

    package init(name: String, rest: String) {
        self.name = name
        self.rest = rest
    }

    /// Nil for text that does not start with `/` and a word.
    package init?(_ text: String) {
        let trimmed = text.trimmed()
        guard trimmed.hasPrefix("/") else { return nil }
        let parts = trimmed.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let head = parts.first else { return nil }
        name = head.lowercased()
        rest = parts.count > 1 ? String(parts[1]).trimmingInlineSpace() : ""
    }
}
