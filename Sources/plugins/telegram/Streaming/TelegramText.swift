import PiRelaySDK

/// Text as Telegram takes it with `parse_mode: HTML`: plain text escaped, long plain text split
/// within the limit (counted in Unicode code points, as Telegram counts), and HTML turned back
/// into plain text for the last-resort retry when Telegram cannot parse what we sent.
enum TelegramText {
    /// The most visible characters one message may hold (Telegram's 4096, with room to spare).
    static let limit = 4000

    static func html(_ plain: String) -> String { Dialect.telegramHTML.escape(plain) }

    /// Plain text in pieces of at most `limit` code points, cut at a line break or a space when
    /// there is one in the last quarter, else between two characters (a flag, a family emoji or
    /// a letter with its accents is never cut in two), then escaped.
    static func htmlChunks(_ plain: String, limit: Int = limit) -> [String] {
        var chunks: [String] = []
        var rest = Substring.UnicodeScalarView(plain.unicodeScalars)
        while rest.count > limit {
            var cut = rest.index(rest.startIndex, offsetBy: limit)
            let floor = rest.index(rest.startIndex, offsetBy: limit * 3 / 4)
            if let newline = rest[floor..<cut].lastIndex(of: "\n") ?? rest[floor..<cut].lastIndex(of: " ") {
                cut = rest.index(after: newline)
            } else {
                while cut > floor, String.Index(cut, within: plain) == nil { cut = rest.index(before: cut) }
            }
            chunks.append(html(String(String.UnicodeScalarView(rest[..<cut]))))
            rest = rest[cut...]
        }
        let last = String(String.UnicodeScalarView(rest))
        if !last.trimmed().isEmpty || chunks.isEmpty { chunks.append(html(last)) }
        return chunks
    }

    /// HTML as plain text: tags dropped, the four entities Telegram knows decoded.
    static func plain(_ html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if inTag {
                if character == ">" { inTag = false }
            } else if character == "<" {
                inTag = true
            } else {
                out.append(character)
            }
        }
        return out.replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&amp;", with: "&")
    }

    /// Whether Telegram would see two texts of ours as the same message, which it compares after
    /// parsing and trimming (an edit between them is refused as not modified): the same visible
    /// text and the same tags in the same order.
    static func sameMessage(_ a: String, _ b: String) -> Bool {
        func parsed(_ html: String) -> (text: String, tags: [Substring]) {
            let text = plain(html).trimmed()
            var tags: [Substring] = []
            var rest = html[...]
            while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
                tags.append(rest[open...close])
                rest = rest[rest.index(after: close)...]
            }
            return (text, tags)
        }
        let (left, right) = (parsed(a), parsed(b))
        return left.text == right.text && left.tags == right.tags
    }

    /// Visible length of our own HTML: tags not counted, an entity as one.
    static func visibleLength(_ html: String) -> Int { plain(html).unicodeScalars.count }
}
