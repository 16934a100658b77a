/// A plain splitter for when the formatter plugin is unavailable: lines, then hard cuts, by
/// UTF-16 length (what Discord counts). The formatter does this properly (fences, links).
package enum PlainSplit {
    package static func chunks(_ text: String, limit: Int) -> [String] {
        // A limit below one unit (a hello, or another machine's request, said so) still moves on.
        let limit = max(limit, 1)
        var out: [String] = []
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = String(line)
            while rest.utf16.count > limit {
                let cut = prefix(rest, limit: limit)
                if !current.isEmpty { out.append(current); current = "" }
                out.append(cut)
                rest = String(rest.unicodeScalars.dropFirst(cut.unicodeScalars.count))
            }
            // Only a line that does not fit after what is there starts a new chunk: a first line of
            // exactly `limit` units would otherwise leave an empty message before it.
            if !current.isEmpty, current.utf16.count + rest.utf16.count + 1 > limit {
                out.append(current)
                current = rest
            } else {
                current = current.isEmpty ? rest : current + "\n" + rest
            }
        }
        if !current.isEmpty || out.isEmpty { out.append(current) }
        return out
    }

    /// The longest start of `line` within `limit` that ends between characters. The cut is a
    /// prefix: a character that does not fit ends it (skipping it for a narrower one further on
    /// would drop and reorder text). A single character wider than the limit is cut between its
    /// scalars, so the loop above always moves on.
    private static func prefix(_ line: String, limit: Int) -> String {
        var cut = ""
        var units = 0
        for ch in line {
            let width = ch.utf16.count
            guard units + width <= limit else { break }
            cut.append(ch)
            units += width
        }
        guard cut.isEmpty else { return cut }
        var scalars = String.UnicodeScalarView()
        for scalar in line.unicodeScalars {
            let width = scalar.utf16.count
            guard scalars.isEmpty || units + width <= limit else { break }
            scalars.append(scalar)
            units += width
        }
        return String(scalars)
    }

    package static func tail(_ text: String, limit: Int) -> String {
        chunks(text, limit: limit).last ?? ""
    }

    /// `chunks`, each escaped by `escape` and within `limit` once escaped: an escape makes text
    /// longer (`<` is `&lt;`), and a chunk cut to the limit before it was refused by the
    /// messenger (Slack's `msg_too_long`), which froze a live view for the rest of the run.
    package static func escapedChunks(_ text: String, limit: Int, escape: (String) -> String) -> [String] {
        chunks(text, limit: limit).flatMap { fitted($0, limit: max(limit, 1), escape: escape) }
    }

    /// The last of `escapedChunks`: a live view's tail.
    package static func escapedTail(_ text: String, limit: Int, escape: (String) -> String) -> String {
        escapedChunks(text, limit: limit, escape: escape).last ?? ""
    }

    /// `plain` escaped, cut again (in proportion to how much the escape grew it) until each
    /// piece fits; a single character is kept whole whatever it becomes.
    private static func fitted(_ plain: String, limit: Int, escape: (String) -> String) -> [String] {
        let escaped = escape(plain)
        let (length, grown) = (plain.utf16.count, escaped.utf16.count)
        guard grown > limit, plain.count > 1 else { return [escaped] }
        let smaller = max(1, min(length - 1, length * limit / grown))
        return chunks(plain, limit: smaller).flatMap { fitted($0, limit: limit, escape: escape) }
    }
}
