/// Undoes exactly what the splitter adds, to check that chunks join back into the original:
/// the `[i/n]` label and the space or LF after it, the line that reopens a fence at the start of a
/// chunk, and the `"\n" + marker` line that closes it at the end of every chunk but the last.
/// Throws when a chunk does not have the shape the contract promises.
struct ChunkNormaliser {
    /// The original text, and the UTF-16 offset in it where each chunk after the first starts.
    static func join(_ chunks: [String], numbered: Bool) throws -> (text: String, boundaries: [Int]) {
        var tracker = FenceTracker()
        var text = ""
        var boundaries: [Int] = []
        for (i, chunk) in chunks.enumerated() {
            // Bytes, not characters: a chunk may start with a combining mark that would merge
            // with the label's space into one character.
            var body = Array(chunk.utf8)[...]
            if numbered, chunks.count > 1 {
                let label = Array("[\(i + 1)/\(chunks.count)]".utf8)
                guard body.starts(with: label), body.count > label.count,
                    body[body.startIndex + label.count] == 0x20 || body[body.startIndex + label.count] == 0x0A
                else {
                    throw Mismatch(description: "chunk \(i + 1) does not start with its label: \(chunk.prefix(40))")
                }
                body = body.dropFirst(label.count + 1)
            }
            if let open = tracker.open {
                guard let lf = body.firstIndex(of: 0x0A) else { throw Mismatch(description: "chunk \(i + 1) lacks its reopening line") }
                let line = String(decoding: body[..<lf], as: UTF8.self)
                let marker = String(repeating: open.character, count: open.count)
                guard line.hasPrefix(marker), !line.dropFirst(open.count).hasPrefix(String(open.character)) else {
                    throw Mismatch(description: "chunk \(i + 1) reopens with \(line), expected \(marker)")
                }
                body = body[(lf + 1)...]
            }
            if i < chunks.count - 1, let lf = body.lastIndex(of: 0x0A) {
                let last = String(decoding: body[(lf + 1)...], as: UTF8.self)
                let candidate = body[..<lf]
                var probe = tracker
                probe.feed(String(decoding: candidate, as: UTF8.self))
                if let open = probe.openIfLineEnded, last == String(repeating: open.character, count: open.count) {
                    body = candidate
                }
            }
            if i > 0 { boundaries.append(text.utf16.count) }
            guard !body.isEmpty else { throw Mismatch(description: "chunk \(i + 1) has no content") }
            let piece = String(decoding: body, as: UTF8.self)
            tracker.feed(piece)
            text += piece
        }
        return (text, boundaries)
    }
}
