/// A markdown table as the formatter puts it into chat: a code block whose rows line up. Found
/// by reading the message like a person would, not by asking the formatter.
struct E2ETable {
    /// The lines between the fences.
    let lines: [String]

    /// The first fenced block in `document` that has a line containing every one of `cells`.
    init?(in document: String, containing cells: [String]) {
        var block: [String]?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let done = block {
                    if done.contains(where: { l in cells.allSatisfy { l.contains($0) } }) {
                        lines = done
                        return
                    }
                    block = nil
                } else {
                    block = []
                }
            } else {
                block?.append(line)
            }
        }
        return nil
    }

    /// The columns at which `|` separators stand, per row; in the rule under the header they are
    /// `+` (elsewhere a `+` is cell text, like "+12").
    var separatorColumns: [[Int]] {
        lines.enumerated().map { row, line in
            let mark: Character = row == 1 ? "+" : "|"
            return line.enumerated().compactMap { $0.element == mark ? $0.offset : nil }
        }
    }

    /// Every row has its separators at the same columns, there is at least one, and a rule of
    /// dashes sits under the header.
    var isAligned: Bool {
        let columns = separatorColumns
        guard lines.count >= 3, let first = columns.first, !first.isEmpty else { return false }
        let rule = lines[1]
        return columns.allSatisfy { $0 == first } && rule.allSatisfy { $0 == "-" || $0 == "+" }
    }
}
