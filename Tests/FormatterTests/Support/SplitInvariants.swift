@testable import FormatterPlugin

/// The properties every split must have, checked against the original text.
enum SplitInvariants {
    /// Throws a description of the first property the chunks break.
    static func check(_ chunks: [String], original: String, atoms: [Range<Int>], limit: Int, numbered: Bool = true) throws {
        guard !original.isEmpty else {
            if !chunks.isEmpty { throw Violation(description: "chunks for an empty text") }
            return
        }
        if original.utf16.count <= limit, chunks != [original] {
            throw Violation(description: "a text within the limit must be one unchanged chunk")
        }
        for (i, chunk) in chunks.enumerated() {
            if chunk.utf16.count > limit {
                throw Violation(description: "chunk \(i + 1) has \(chunk.utf16.count) UTF-16 units, limit \(limit)")
            }
            var tracker = FenceTracker()
            tracker.feed(chunk)
            if tracker.openIfLineEnded != nil {
                throw Violation(description: "chunk \(i + 1) leaves a fence open: …\(chunk.suffix(60))")
            }
        }
        let (joined, boundaries) = try ChunkNormaliser.join(chunks, numbered: numbered)
        if joined != original {
            let common = zip(joined.utf16, original.utf16).prefix(while: { $0 == $1 }).count
            throw Violation(description: "joined text differs at UTF-16 offset \(common) of \(original.utf16.count)")
        }
        var clusterStarts = Set<Int>()
        var offset = 0
        for ch in original {
            clusterStarts.insert(offset)
            offset += ch.utf16.count
        }
        for b in boundaries {
            if !clusterStarts.contains(b) {
                throw Violation(description: "a chunk boundary at \(b) falls inside a grapheme cluster or surrogate pair")
            }
            if let atom = atoms.first(where: { $0.lowerBound < b && b < $0.upperBound }) {
                throw Violation(description: "a chunk boundary at \(b) falls inside the link or code span \(atom)")
            }
        }
    }
}
