import PiRelaySDK

/// Telegram's `parse_mode: HTML` (docs/PROTOCOL.md, `format.*`; Telegram spec §7.1): the markdown
/// document is turned into styled text and written with the few tags Telegram accepts, split by
/// visible length with every tag closed at the end of a chunk and reopened in the next.
struct TelegramHTML: Markup {
    /// Settled texts kept from earlier views, for live views; nil reads every view whole.
    var settledTexts: SettledTexts?

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        HTMLSplitter(limit: limit).split(StyledText(markdown: document), numbered: numbered)
    }

    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        let (done, now) = StyledText.live(settled: settled, current: current, reusing: settledTexts)
        guard now.starts(with: done) else {
            // As for markdown: cannot happen while the renderer keeps its prefix promise.
            return ([], fitted(now, from: 0, limit: limit))
        }
        let found = HTMLSplitter(limit: limit).settledChunks(done)
        return (found.chunks, fitted(now, from: found.rest, limit: limit))
    }

    func rendered(_ markdown: String) -> String {
        let text = StyledText(markdown: markdown)
        return text.html(0..<text.units.count)
    }

    func escaped(_ plain: String) -> String { Dialect.telegramHTML.escape(plain) }

    func length(_ message: String) -> Int { message.telegramVisibleLength }

    /// The text from unit `start` on as one message; when too long, its newest part after a "…"
    /// line, as the markdown tail is cut.
    private func fitted(_ text: StyledText, from start: Int, limit: Int) -> String {
        let rest = start..<text.units.count
        guard text.visibleLength(rest) > limit else { return text.html(rest) }
        let last = HTMLSplitter(limit: limit - 2).split(text, from: start, numbered: false).last ?? ""
        return "…\n" + last
    }
}
