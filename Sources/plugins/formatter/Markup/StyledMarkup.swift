/// A markup written from styled text (`StyledText`): Telegram's HTML and Slack's mrkdwn. Their
/// live views are cut the same way; only how a settled chunk is budgeted and how the tail is
/// fitted to the limit are the dialect's.
protocol StyledMarkup: Markup {
    /// Settled texts kept from earlier views, for live views; nil reads every view whole.
    var settledTexts: SettledTexts? { get }
    /// What cuts a live view's settled chunks. Its budget must not depend on the text, or a
    /// later state of the run could cut the settled part differently.
    func settledSplitter(limit: Int) -> HTMLSplitter
    /// The text from unit `start` on as one message; when too long, its newest part after a "…"
    /// line, as the markdown tail is cut.
    func fitted(_ text: StyledText, from start: Int, limit: Int) -> String
}

extension StyledMarkup {
    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        let (done, now) = StyledText.live(settled: settled, current: current, reusing: settledTexts)
        guard now.starts(with: done) else {
            // As for markdown: cannot happen while the renderer keeps its prefix promise.
            return ([], fitted(now, from: 0, limit: limit))
        }
        let found = settledSplitter(limit: limit).settledChunks(done)
        return (found.chunks, fitted(now, from: found.rest, limit: limit))
    }
}
