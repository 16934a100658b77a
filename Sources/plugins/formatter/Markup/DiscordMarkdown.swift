/// Discord's markdown: the document is the message. Chunks are cut by `ChunkSplitter`, which
/// closes a code fence at the end of a chunk and reopens it in the next, and lengths are UTF-16
/// units, as Discord counts them.
struct DiscordMarkdown: Markup {
    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        ChunkSplitter(limit: limit).split(document, numbered: numbered).map(Self.visible)
    }

    /// A chunk of blank lines alone (a run of them longer than a message, from a model repeating
    /// itself) as "…": Discord refuses a message with no visible content (50006), and the chunk
    /// keeps its place among the run's messages.
    static func visible(_ chunk: String) -> String {
        chunk.allSatisfy(\.isWhitespace) ? "…" : chunk
    }

    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        guard ByteSearch.starts(current, with: settled) else {
            // Cannot happen while the renderer keeps its prefix promise; finalize nothing rather
            // than something that might change.
            return ([], fitted(current, limit: limit))
        }
        let found = ChunkSplitter(limit: limit).settledChunks(settled)
        let rest = String(decoding: current.utf8.dropFirst(found.restUTF8), as: UTF8.self)
        var tail = rest
        if let fence = found.fence, !rest.isEmpty { tail = fence.reopeningLine + "\n" + rest }
        return (found.chunks.map(Self.visible), fitted(tail, limit: limit))
    }

    func rendered(_ markdown: String) -> String { markdown }

    func escaped(_ plain: String) -> String { plain }

    func length(_ message: String) -> Int { message.utf16.count }

    /// The tail cut to one message when it is too long (a long table or many running tools not
    /// settled yet): its newest part, which is what someone watching wants to see, after a "…"
    /// line. The older part reappears as finished chunks once it settles.
    func fitted(_ tail: String, limit: Int) -> String {
        guard tail.utf16.count > limit else { return tail }
        let last = ChunkSplitter(limit: limit - 2).split(tail, numbered: false).last ?? ""
        return "…\n" + last
    }
}
