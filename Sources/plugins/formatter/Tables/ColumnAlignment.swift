/// A table column's alignment, from its delimiter cell (`:--`, `:-:`, `--:`).
enum ColumnAlignment: Equatable {
    case left, center, right

    /// Parses one delimiter cell; nil when it is not one.
    init?(delimiter cell: Substring) {
        let trimmed = cell.trimmingSpaces()
        guard !trimmed.isEmpty else { return nil }
        let left = trimmed.hasPrefix(":"), right = trimmed.hasSuffix(":")
        let dashes = trimmed.dropFirst(left ? 1 : 0).dropLast(right && trimmed.count > 1 ? 1 : 0)
        guard !dashes.isEmpty, dashes.allSatisfy({ $0 == "-" }) else { return nil }
        switch (left, right) {
        case (true, true): self = .center
        case (false, true): self = .right
        default: self = .left
        }
    }

    /// `text` padded with spaces to `width` columns.
    func pad(_ text: String, to width: Int) -> String {
        let gap = max(0, width - text.displayWidth)
        switch self {
        case .left: return text + String(repeating: " ", count: gap)
        case .right: return String(repeating: " ", count: gap) + text
        case .center:
            let before = gap / 2
            return String(repeating: " ", count: before) + text + String(repeating: " ", count: gap - before)
        }
    }
}
