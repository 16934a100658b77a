import PiRelaySDK

/// Slack's mrkdwn (docs/PROTOCOL.md, `format.*`; Slack spec §6): the markdown document as styled
/// text written with mrkdwn's few markers, split like Telegram's HTML (every style closed at the
/// end of a chunk and reopened in the next, so a code fence never runs across two messages).
/// Tables are code blocks already (the run renderer's), headings bold. Slack counts the
/// characters of what we send, escapes and markers included, so a chunk is cut from less than
/// the limit and cut again smaller until its mrkdwn fits.
struct SlackMrkdwn: Markup {
    /// Settled texts kept from earlier views, for live views; nil reads every view whole.
    var settledTexts: SettledTexts?

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        let text = StyledText(markdown: document)
        var budget = limit
        while true {
            let chunks = splitter(budget).split(text, numbered: numbered)
            if budget <= 64 || chunks.allSatisfy({ $0.count <= limit }) { return chunks }
            budget = budget * 4 / 5
        }
    }

    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        let (done, now) = StyledText.live(settled: settled, current: current, reusing: settledTexts)
        guard now.starts(with: done) else {
            // As for markdown: cannot happen while the renderer keeps its prefix promise.
            return ([], fitted(now, from: 0, limit: limit))
        }
        // Settled chunks are cut with room to spare, so that their mrkdwn stays within the limit
        // whatever the escapes add; the budget must not depend on the text, or a later state of
        // the run could cut the settled part differently.
        let found = splitter(limit * 3 / 5).settledChunks(done)
        return (found.chunks, fitted(now, from: found.rest, limit: limit))
    }

    func rendered(_ markdown: String) -> String {
        let text = StyledText(markdown: markdown)
        return text.mrkdwn(0..<text.units.count)
    }

    func escaped(_ plain: String) -> String { Dialect.slackMrkdwn.escape(plain) }

    func length(_ message: String) -> Int { message.count }

    private func splitter(_ budget: Int) -> HTMLSplitter {
        HTMLSplitter(limit: budget) { text, range in text.mrkdwn(range) }
    }

    /// The text from unit `start` on as one message; when too long, its newest part after a "…"
    /// line, as the markdown tail is cut.
    private func fitted(_ text: StyledText, from start: Int, limit: Int) -> String {
        let whole = text.mrkdwn(start..<text.units.count)
        guard whole.count > limit else { return whole }
        var budget = limit - 2
        while true {
            let last = splitter(budget).split(text, from: start, numbered: false).last ?? ""
            if last.count + 2 <= limit || budget <= 64 { return "…\n" + last }
            budget = budget * 4 / 5
        }
    }
}
