import PiRelaySDK

/// `format.live`: the finished chunks of a run still streaming, and the tail the messenger keeps
/// editing.
///
/// Finished chunks must never change once returned, and the plugin may be restarted between
/// calls, so they are recomputed from scratch every time and are stable by construction: they
/// are cut only from the settled document (which every later state of the run extends), and only
/// where the splitter's whole window of candidate breaks lies inside it, so every later call
/// takes the same decisions for them.
struct LiveView {
    let chunks: [String]
    let tail: String

    init(run: RunView, limit: Int, renderer: RunRenderer) {
        let (settled, current) = renderer.liveDocuments(run)
        let splitter = ChunkSplitter(limit: limit)
        guard current.utf8.starts(with: settled.utf8) else {
            // Cannot happen while the renderer keeps its prefix promise; finalize nothing rather
            // than something that might change.
            self.chunks = []
            self.tail = Self.fitted(current, limit: limit)
            return
        }
        let found = splitter.settledChunks(settled)
        let rest = String(decoding: current.utf8.dropFirst(found.restUTF8), as: UTF8.self)
        var tail = rest
        if let fence = found.fence, !rest.isEmpty { tail = fence.reopeningLine + "\n" + rest }
        self.chunks = found.chunks
        self.tail = Self.fitted(tail, limit: limit)
    }

    /// The tail cut to one message when it is too long (a long table or many running tools not
    /// settled yet): its newest part, which is what someone watching wants to see, after a "…"
    /// line. The older part reappears as finished chunks once it settles.
    static func fitted(_ tail: String, limit: Int) -> String {
        guard tail.utf16.count > limit else { return tail }
        let last = ChunkSplitter(limit: limit - 2).split(tail, numbered: false).last ?? ""
        return "…\n" + last
    }
}
