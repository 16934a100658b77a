import PiRelaySDK

/// Telegram's `parse_mode: HTML` (docs/PROTOCOL.md, `format.*`; Telegram spec §7.1): the markdown
/// document is turned into styled text and written with the few tags Telegram accepts, split by
/// visible length with every tag closed at the end of a chunk and reopened in the next.
struct TelegramHTML: StyledMarkup {
    var settledTexts: SettledTexts?

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        HTMLSplitter(limit: limit).split(StyledText(markdown: document), numbered: numbered)
    }

    func settledSplitter(limit: Int) -> HTMLSplitter { HTMLSplitter(limit: limit) }

    func rendered(_ markdown: String) -> String {
        let text = StyledText(markdown: markdown)
        return text.html(0..<text.units.count)
    }

    func escaped(_ plain: String) -> String { Dialect.telegramHTML.escape(plain) }

    func length(_ message: String) -> Int { message.telegramVisibleLength }

    /// Lengths are visible characters, which the styled text counts without writing the HTML.
    func fitted(_ text: StyledText, from start: Int, limit: Int) -> String {
        let rest = start..<text.units.count
        guard text.visibleLength(rest) > limit else { return text.html(rest) }
        let last = HTMLSplitter(limit: limit - 2).split(text, from: start, numbered: false).last ?? ""
        return "…\n" + last
    }
}
