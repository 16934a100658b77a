extension StringProtocol {
    /// Without leading and trailing white space and line breaks (as Foundation's
    /// `trimmed()`, which FoundationEssentials lacks).
    package func trimmed() -> String { trimming { $0.isWhitespace } }

    /// Without leading and trailing spaces and tabs, line breaks kept (as Foundation's
    /// `trimmingSpaces()`).
    package func trimmingInlineSpace() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// Without the leading and trailing characters `drop` picks.
    package func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}
