/// Lines added and removed by an edit, counted from the diff in the tool result's details.
struct DiffStat: Equatable {
    var added = 0
    var removed = 0

    /// Counts a unified diff. With `@@ -a,b +c,d @@` hunk headers, only the lines each hunk
    /// announces are counted, so `--- a/x` file headers are never taken for removed lines while
    /// a removed line that starts with `--` still counts. Without hunk headers (pi's own edit
    /// diff, one `+`/`-`/space line per line), every `+` and `-` line counts.
    init(diff: String) {
        let lines = diff.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.contains(where: { $0.hasPrefix("@@") }) else {
            for line in lines {
                if line.hasPrefix("+++ ") || line.hasPrefix("--- ") { continue }
                if line.hasPrefix("+") { added += 1 } else if line.hasPrefix("-") { removed += 1 }
            }
            return
        }
        var oldLeft = 0, newLeft = 0
        var inHunk = false
        for line in lines {
            if line.hasPrefix("@@") {
                (oldLeft, newLeft) = Self.hunkSizes(line) ?? (Int.max, Int.max)
                inHunk = true
                continue
            }
            guard inHunk else { continue }
            if line.hasPrefix("diff ") {
                inHunk = false
                continue
            }
            switch line.first {
            case "+": added += 1; newLeft -= 1
            case "-": removed += 1; oldLeft -= 1
            case " ": oldLeft -= 1; newLeft -= 1
            case "\\": break
            default:
                // An empty context line some tools write without its leading space.
                if line.isEmpty { oldLeft -= 1; newLeft -= 1 }
            }
            if oldLeft <= 0, newLeft <= 0 { inHunk = false }
        }
    }

    /// The old and new line counts of `@@ -a,b +c,d @@` (a missing count means 1).
    private static func hunkSizes(_ header: Substring) -> (Int, Int)? {
        let parts = header.split(separator: " ")
        guard parts.count >= 3, parts[1].hasPrefix("-"), parts[2].hasPrefix("+") else { return nil }
        func size(_ range: Substring) -> Int? {
            let pieces = range.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
            guard Int(pieces[0]) != nil else { return nil }
            return pieces.count > 1 ? Int(pieces[1]) : 1
        }
        guard let old = size(parts[1]), let new = size(parts[2]) else { return nil }
        return (old, new)
    }
}
