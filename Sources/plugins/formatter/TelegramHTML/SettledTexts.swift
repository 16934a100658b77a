/// The styled text of live views' settled documents, kept between `format.live` requests so that
/// a run's next view reads only what the run added since its last one, not the whole answer
/// again (reading it was most of a web page's live view: two whole parses every 100 ms).
///
/// A memo, never a source of truth: a view comes out the same with or without it, in this
/// instance or a restarted one, because `MarkdownStyler` reading a document in line-sized parts
/// gives what reading it whole gives. Kept in a `PrefixMemo`, bounded by entries and by the units
/// they hold.
final class SettledTexts: Sendable {
    static let maxEntries = 32
    static let maxUnits = 1 << 19

    /// Settled documents and their reading; a text's cost is its units.
    private let memo = PrefixMemo<MarkdownStyler>(maxEntries: maxEntries, maxCost: maxUnits)

    /// The styled texts of `settled` and of `current`, which goes on from it; nil when `current`
    /// does not start with `settled` or `settled` does not end at a line boundary (the caller
    /// then reads both whole).
    func styled(settled: String, current: String) -> (done: StyledText, now: StyledText)? {
        guard settled.isEmpty || settled.utf8.last == 0x0A, ByteSearch.starts(current, with: settled) else { return nil }
        var styler = memo.longest(prefixOf: settled).map { (markdown: $0.text, styler: $0.value) } ?? (markdown: "", styler: MarkdownStyler())
        let readBefore = styler.markdown.utf8.count
        if readBefore < settled.utf8.count {
            styler.styler.read(Self.part(of: settled, from: readBefore))
            memo.remember(settled, styler.styler, cost: styler.styler.text.units.count)
        }
        let done = styler.styler.text
        var now = styler.styler
        now.read(Self.part(of: current, from: settled.utf8.count))
        return (done, now.text)
    }

    /// How many entries are kept, for tests.
    var count: Int { memo.count }

    private static func part(of text: String, from utf8Offset: Int) -> Substring {
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)
        return text[start...]
    }
}
