/// A plain splitter for when the formatter plugin is unavailable: lines, then hard cuts, by
/// UTF-16 length (what Discord counts). The formatter does this properly (fences, links).
enum PlainSplit {
    static func chunks(_ text: String, limit: Int) -> [String] {
        var out: [String] = []
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var l = String(line)
            while l.utf16.count > limit {
                var cut = ""
                for ch in l where cut.utf16.count + ch.utf16.count <= limit { cut.append(ch) }
                if !current.isEmpty { out.append(current); current = "" }
                out.append(cut)
                l = String(l.dropFirst(cut.count))
            }
            if current.utf16.count + l.utf16.count + 1 > limit {
                out.append(current)
                current = l
            } else {
                current = current.isEmpty ? l : current + "\n" + l
            }
        }
        if !current.isEmpty || out.isEmpty { out.append(current) }
        return out
    }

    static func tail(_ text: String, limit: Int) -> String {
        chunks(text, limit: limit).last ?? ""
    }
}
