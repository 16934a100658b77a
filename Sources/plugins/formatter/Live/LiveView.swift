import PiRelaySDK

/// `format.live`: the finished chunks of a run still streaming, and the tail the messenger keeps
/// editing.
///
/// Finished chunks must never change once returned, and the plugin may be restarted between
/// calls, so they are recomputed from scratch every time and are stable by construction: they
/// are cut only from the settled document (which every later state of the run extends), and only
/// where the splitter's whole window of candidate breaks lies inside it, so every later call
/// takes the same decisions for them. The markup does the cutting, in the messenger's dialect.
struct LiveView {
    let chunks: [String]
    let tail: String

    init(run: RunView, limit: Int, renderer: RunRenderer, markup: any Markup = DiscordMarkdown()) {
        let (settled, current) = renderer.liveDocuments(run)
        (chunks, tail) = markup.live(settled: settled, current: current, limit: limit)
    }
}
