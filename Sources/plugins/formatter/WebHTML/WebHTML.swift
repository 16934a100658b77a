import PiRelaySDK

/// A web page's markup (`Dialect.html`, the `web` dashboard's): the same small tag set Telegram
/// takes, written by the same styled text (`StyledText`), so what a run says is escaped once, in
/// one place, and no markdown parser runs in the browser. Links open in a new tab with no
/// opener and no referrer; their targets are only ever http, https or tg (`InlineMarkdown`), so
/// no link runs script. Lengths are visible characters, as for Telegram.
struct WebHTML: Markup {
    private let tags: TelegramHTML

    init(settledTexts: SettledTexts? = nil) {
        tags = TelegramHTML(settledTexts: settledTexts)
    }

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        tags.split(document, limit: limit, numbered: numbered).map(Self.pageLinks)
    }

    func live(settled: String, current: String, limit: Int) -> (chunks: [String], tail: String) {
        let view = tags.live(settled: settled, current: current, limit: limit)
        return (view.chunks.map(Self.pageLinks), Self.pageLinks(view.tail))
    }

    func rendered(_ markdown: String) -> String { Self.pageLinks(tags.rendered(markdown)) }

    func escaped(_ plain: String) -> String { Dialect.html.escape(plain) }

    func length(_ message: String) -> Int { tags.length(message) }

    /// Every link of `html` opened in a new tab, with no `window.opener` and no referrer. Text
    /// is escaped before it gets here, so `<a href="` can only be a tag the styled text wrote.
    static func pageLinks(_ html: String) -> String {
        guard Self.hasLink(html) else { return html }
        return html.replacing("<a href=\"", with: "<a rel=\"noopener noreferrer\" target=\"_blank\" href=\"")
    }

    /// True when `html` holds a link.
    static func hasLink(_ html: String) -> Bool {
        ByteSearch.contains(html[...], linkMarker)
    }

    private static let linkMarker = Array("<a href=\"".utf8)
}
