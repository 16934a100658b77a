import Foundation

/// What a chat message must look like, checked the way a reader would: numbering labels and
/// code fences, independently of how the formatter builds them.
enum E2EChunks {
    /// The `[i/n]` label a chunk starts with, if any.
    static func label(of chunk: String) -> (index: Int, total: Int)? {
        guard chunk.hasPrefix("["), let close = chunk.firstIndex(of: "]") else { return nil }
        let parts = chunk[chunk.index(after: chunk.startIndex)..<close].split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        return (i, n)
    }

    /// The chunk without its label and the space or line break after it.
    static func body(of chunk: String) -> Substring {
        guard label(of: chunk) != nil, let close = chunk.firstIndex(of: "]") else { return Substring(chunk) }
        var rest = chunk[chunk.index(after: close)...]
        if rest.first == " " || rest.first == "\n" { rest = rest.dropFirst() }
        return rest
    }

    /// True when every code fence opened in `text` is closed in it (CommonMark rules: a closing
    /// fence uses the same character, at least as many of them, and has no info string).
    static func fencesBalanced(_ text: Substring) -> Bool {
        var open: (char: Character, count: Int)?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            guard indent <= 3 else { continue }
            let rest = line.dropFirst(indent)
            guard let c = rest.first, c == "`" || c == "~" else { continue }
            let run = rest.prefix { $0 == c }.count
            guard run >= 3 else { continue }
            let info = rest.dropFirst(run).trimmingCharacters(in: .whitespaces)
            if let o = open {
                if c == o.char, run >= o.count, info.isEmpty { open = nil }
            } else if !(c == "`" && info.contains("`")) {
                open = (c, run)
            }
        }
        return open == nil
    }

    /// The text of all chunks in order, labels removed, as one document.
    static func joined(_ chunks: [String]) -> String {
        chunks.map { String(body(of: $0)) }.joined(separator: "\n")
    }
}
