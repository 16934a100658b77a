/// The tests' own idea of which code fence is open after some markdown, written independently of
/// the plugin's `Fence`: a line of three or more backticks or tildes (after any indentation)
/// opens a fence unless a backtick fence's info contains a backtick; a line of at least as many of
/// the same character and nothing else closes it.
struct FenceTracker {
    private(set) var open: Open?
    /// The unfinished last line, carried over to the next `feed`.
    private var pending = ""

    mutating func feed(_ text: String) {
        let parts = (pending + text).split(separator: "\n", omittingEmptySubsequences: false)
        for line in parts.dropLast() { take(line) }
        pending = String(parts.last ?? "")
    }

    /// The state if the pending partial line were complete.
    var openIfLineEnded: Open? {
        var copy = self
        copy.take(Substring(pending))
        return copy.open
    }

    private mutating func take(_ line: Substring) {
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        guard let first = trimmed.first, first == "`" || first == "~" else { return }
        let run = trimmed.prefix(while: { $0 == first }).count
        guard run >= 3 else { return }
        let rest = trimmed.dropFirst(run)
        if let current = open {
            if first == current.character, run >= current.count, rest.allSatisfy({ $0 == " " || $0 == "\t" }) { open = nil }
        } else if !(first == "`" && rest.contains("`")) {
            open = Open(character: first, count: run)
        }
    }
}
