import PiRelaySDK

/// How styled text looks in a terminal: each tag's SGR parameters, and the gutter that marks a
/// code block or quote line.
extension StyledText {
    /// The text as terminal lines, one per LF-ended line (and one for an unended rest): inline
    /// styles as SGR sequences reset at the end of each line, links underlined with their address
    /// after them, code block and quote lines behind a dim gutter, control characters shown as
    /// U+FFFD. A line wider than `width` is cut into several. Each line is written from its own
    /// units only, so the lines of a prefix ending at a line boundary are the first lines of the
    /// longer text, which the live view's finished chunks rely on.
    func terminalLines(width: Int) -> [String] {
        var lines: [String] = []
        var start = 0
        for index in units.indices where units[index].byte == 0x0A {
            lines += terminalLine(start..<index, width: width)
            start = index + 1
        }
        if start < units.count { lines += terminalLine(start..<units.count, width: width) }
        return lines
    }

    /// One line, cut into pieces of at most `width` characters (gutter and link addresses
    /// included), after a space where one is near the end of the piece.
    private func terminalLine(_ range: Range<Int>, width: Int) -> [String] {
        let styleIndex = range.isEmpty ? (range.lowerBound < units.count ? range.lowerBound : nil) : range.lowerBound
        let gutter = styleIndex.map { Self.gutter(tags($0)) } ?? ""
        let room = width == Int.max ? Int.max : max(1, width - gutter.count)
        guard !range.isEmpty else { return [gutter.isEmpty ? "" : Self.dim(gutter)] }
        let addresses = linkAddresses(range, room: room)
        var pieces: [String] = []
        var from = range.lowerBound
        while from < range.upperBound {
            var to = from
            var used = 0
            while to < range.upperBound {
                let cost = 1 + (addresses[to]?.count ?? 0)
                if to > from, used + cost > room { break }
                used += cost
                to += 1
            }
            // A cut goes after a space when one is in the second half of the piece, so words stay whole.
            if to < range.upperBound, let space = (from + (to - from) / 2..<to).last(where: { units[$0].byte == 0x20 }) {
                to = space + 1
            }
            pieces.append((gutter.isEmpty ? "" : Self.dim(gutter)) + styledRun(from..<to, addresses: addresses))
            from = to
        }
        return pieces
    }

    /// What follows the last unit of each link in `range`: its address in brackets, unless the
    /// text is the address, elided to fit in `room` with the unit.
    private func linkAddresses(_ range: Range<Int>, room: Int) -> [Int: String] {
        var found: [Int: String] = [:]
        for index in range {
            guard let link = tags(index).last(where: { $0.name == "a" }), index + 1 == range.upperBound || !tags(index + 1).contains(link)
            else { continue }
            let address = link.address
            guard !address.isEmpty, !linkText(endingAt: index, link: link).hasSuffix(address) else { continue }
            let shown = Dialect.ansi.escape(address)
            found[index] = room == Int.max ? " (" + shown + ")" : " (" + shown.elidingMiddle(to: max(1, room - 4)) + ")"
        }
        return found
    }

    /// Units `range` with their styles, each link's address after it; every style ends with
    /// the range.
    private func styledRun(_ range: Range<Int>, addresses: [Int: String]) -> String {
        var out = ""
        var open: [String] = []
        for index in range {
            let codes = tags(index).flatMap(Self.sgr)
            if codes != open {
                if !open.isEmpty { out += Self.reset }
                if !codes.isEmpty { out += "\u{1B}[" + codes.joined(separator: ";") + "m" }
                open = codes
            }
            let character = character(at: index)
            out += character.unicodeScalars.contains(where: Dialect.isTerminalControl) ? "\u{FFFD}" : String(character)
            if let address = addresses[index] {
                if !open.isEmpty { out += Self.reset }
                open = []
                out += Self.dim(address)
            }
        }
        if !open.isEmpty { out += Self.reset }
        return out
    }

    /// The visible text of the link that ends at unit `index`.
    private func linkText(endingAt index: Int, link: HTMLTag) -> String {
        var first = index
        while first > 0, tags(first - 1).contains(link), units[first - 1].byte != 0x0A { first -= 1 }
        return String((first...index).map(character(at:)))
    }

    static let reset = "\u{1B}[0m"

    static func dim(_ text: String) -> String { "\u{1B}[2m" + text + reset }

    /// SGR parameters for a tag: bold, italic, inline code in cyan, a link underlined in blue,
    /// a quote (thinking, a quoted answer) dim. A code block keeps the terminal's colours.
    static func sgr(_ tag: HTMLTag) -> [String] {
        switch tag.name {
        case "b": ["1"]
        case "i": ["3"]
        case "code" where tag.block == 0: ["36"]
        case "a": ["4", "34"]
        case "blockquote": ["2"]
        default: []
        }
    }

    /// What stands before each line of a code block or a quote.
    static func gutter(_ tags: [HTMLTag]) -> String {
        if tags.contains(where: { $0.name == "pre" }) { return "│ " }
        if tags.contains(where: { $0.name == "blockquote" }) { return "▌ " }
        return ""
    }
}
