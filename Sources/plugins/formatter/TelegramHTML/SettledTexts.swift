import Synchronization

/// The styled text of live views' settled documents, kept between `format.live` requests so that
/// a run's next view reads only what the run added since its last one, not the whole answer
/// again (reading it was most of a web page's live view: two whole parses every 100 ms).
///
/// A memo, never a source of truth: a view comes out the same with or without it, in this
/// instance or a restarted one, because `MarkdownStyler` reading a document in line-sized parts
/// gives what reading it whole gives. Bounded by entries and by the units they hold; the least
/// recently used goes first.
final class SettledTexts: Sendable {
    static let maxEntries = 32
    static let maxUnits = 1 << 19

    private struct Entry {
        let markdown: String
        let styler: MarkdownStyler
        var used: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var clock: UInt64 = 0
        var units: Int { entries.reduce(0) { $0 + $1.styler.text.units.count } }
    }

    private let state = Mutex(State())

    /// The styled texts of `settled` and of `current`, which goes on from it; nil when `current`
    /// does not start with `settled` or `settled` does not end at a line boundary (the caller
    /// then reads both whole).
    func styled(settled: String, current: String) -> (done: StyledText, now: StyledText)? {
        guard settled.isEmpty || settled.utf8.last == 0x0A, current.utf8.starts(with: settled.utf8) else { return nil }
        var styler = known(prefixOf: settled) ?? (markdown: "", styler: MarkdownStyler())
        let readBefore = styler.markdown.utf8.count
        if readBefore < settled.utf8.count {
            styler.styler.read(Self.part(of: settled, from: readBefore))
            remember(settled, styler.styler)
        }
        let done = styler.styler.text
        var now = styler.styler
        now.read(Self.part(of: current, from: settled.utf8.count))
        return (done, now.text)
    }

    /// How many entries are kept, for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// The longest kept document that `markdown` starts with.
    private func known(prefixOf markdown: String) -> (markdown: String, styler: MarkdownStyler)? {
        state.withLock { state in
            var best: Int?
            for (index, entry) in state.entries.enumerated()
            where entry.markdown.utf8.count <= markdown.utf8.count
                && entry.markdown.utf8.count > (best.map { state.entries[$0].markdown.utf8.count } ?? -1)
                && markdown.utf8.starts(with: entry.markdown.utf8)
            {
                best = index
            }
            guard let best else { return nil }
            state.clock += 1
            state.entries[best].used = state.clock
            return (state.entries[best].markdown, state.entries[best].styler)
        }
    }

    /// Keeps `markdown`'s reading in place of the shorter documents it goes on from (their run
    /// has moved on), evicting the least recently used beyond the bounds. A text too large for
    /// the bound alone is not kept.
    private func remember(_ markdown: String, _ styler: MarkdownStyler) {
        guard styler.text.units.count <= Self.maxUnits else { return }
        state.withLock { state in
            state.entries.removeAll { markdown.utf8.starts(with: $0.markdown.utf8) }
            state.clock += 1
            state.entries.append(Entry(markdown: markdown, styler: styler, used: state.clock))
            while state.entries.count > Self.maxEntries || state.units > Self.maxUnits {
                guard let oldest = state.entries.indices.min(by: { state.entries[$0].used < state.entries[$1].used }) else { break }
                state.entries.remove(at: oldest)
            }
        }
    }

    private static func part(of text: String, from utf8Offset: Int) -> Substring {
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)
        return text[start...]
    }
}
