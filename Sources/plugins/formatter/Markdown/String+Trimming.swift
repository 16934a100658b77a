extension StringProtocol {
    /// Drops leading and trailing spaces, tabs and CRs (not newlines: callers work line by line).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }

    /// True when the text is empty or only spaces and tabs.
    var isBlank: Bool { allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" } }
}
