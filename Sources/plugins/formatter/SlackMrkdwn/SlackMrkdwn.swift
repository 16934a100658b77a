import PiRelaySDK

/// Slack's mrkdwn (docs/PROTOCOL.md, `format.*`; Slack spec §6): the markdown document as styled
/// text written with mrkdwn's few markers, split like Telegram's HTML (every style closed at the
/// end of a chunk and reopened in the next, so a code fence never runs across two messages).
/// Tables are code blocks already (the run renderer's), headings bold. Slack counts the
/// characters of what we send, escapes and markers included, so a chunk is cut from less than
/// the limit and cut again smaller until its mrkdwn fits. Its "characters" are measured in UTF-16
/// units, never fewer than code points whichever Slack counts: a Devanagari letter of four code
/// points is one `Character`, and views cut by `Character`s came out over the limit.
struct SlackMrkdwn: StyledMarkup {
    var settledTexts: SettledTexts?

    func split(_ document: String, limit: Int, numbered: Bool) -> [String] {
        let text = StyledText(markdown: document)
        var budget = limit
        while true {
            let chunks = splitter(budget).split(text, numbered: numbered)
            if budget <= 64 || chunks.allSatisfy({ length($0) <= limit }) { return chunks }
            budget = budget * 4 / 5
        }
    }

    /// Settled chunks are cut with room to spare, so that their mrkdwn stays within the limit
    /// whatever the escapes add.
    func settledSplitter(limit: Int) -> HTMLSplitter { splitter(limit * 3 / 5) }

    func rendered(_ markdown: String) -> String {
        let text = StyledText(markdown: markdown)
        return text.mrkdwn(0..<text.units.count)
    }

    func escaped(_ plain: String) -> String { Dialect.slackMrkdwn.escape(plain) }

    func length(_ message: String) -> Int { message.utf16.count }

    /// Cuts at `budget`, counting each link's `<address|…>` and each escape (`&lt;` is four
    /// characters to Slack) as the text they are in Slack: a code block of `<<` was cut by its
    /// visible length and came out over the limit.
    private func splitter(_ budget: Int) -> HTMLSplitter {
        HTMLSplitter(
            limit: budget, write: { text, range in text.mrkdwn(range) }, linkCost: { $0.mrkdwnAddress.count + 3 },
            unitExtra: Self.escapeCost)
    }

    /// What unit `index` costs in mrkdwn beyond its code points (`StyledText.mrkdwn`), at most:
    /// Slack's escapes (`&amp;` four more, `&lt;` and `&gt;` three, by code point, so a `<` under
    /// a combining mark counts too); a second UTF-16 unit for each code point past U+FFFF (an
    /// emoji); where the style changes, the markers of every style the unit is in, opened and
    /// closed (a fence `` ```\n `` and `` \n``` ``, `*`, `_`, a backtick); and `> ` at a quoted line's
    /// start. Settled chunks are never measured after they are written, so a cost below what
    /// they become let a run of quoted `` `x` `` lines reach 5,400 characters, which Slack
    /// refused (`msg_too_long`) and the live view froze.
    static func escapeCost(_ text: StyledText, _ index: Int) -> Int {
        func cost(_ byte: UInt8) -> Int {
            switch byte {
            case UInt8(ascii: "&"): 4
            case UInt8(ascii: "<"), UInt8(ascii: ">"): 3
            case 0xF0...0xF4: 1
            default: 0
            }
        }
        let unit = text.units[index]
        var extra: Int
        if unit.byte != 0 {
            extra = cost(unit.byte)
        } else {
            let start = Int(unit.clusterStart)
            extra = text.clusters[start..<start + Int(unit.clusterLength)].reduce(0) { $0 + cost($1) }
        }
        guard unit.style != 0 else { return extra }
        let lineStart = index == 0 || text.units[index - 1].byte == UInt8(ascii: "\n")
        guard lineStart || text.units[index - 1].style != unit.style else { return extra }
        for tag in text.tags(index) {
            switch tag.name {
            case "pre": extra += 8
            case "blockquote": extra += lineStart ? 2 : 0
            case "a": break
            default: extra += 2
            }
        }
        return extra
    }

    /// Slack counts escapes and markers too: the tail is cut smaller until its mrkdwn fits.
    func fitted(_ text: StyledText, from start: Int, limit: Int) -> String {
        let whole = text.mrkdwn(start..<text.units.count)
        guard length(whole) > limit else { return whole }
        var budget = limit - 2
        while true {
            let last = splitter(budget).split(text, from: start, numbered: false).last ?? ""
            if length(last) + 2 <= limit || budget <= 64 { return "…\n" + last }
            budget = budget * 4 / 5
        }
    }
}
