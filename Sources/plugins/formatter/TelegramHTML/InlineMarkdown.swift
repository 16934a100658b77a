/// The inline markdown of one line as styled text: code spans, `**bold**` and `__bold__`,
/// `*italics*` and `_italics_`, `[links](https://…)` and `<https://…>`, backslash escapes.
///
/// Lenient like a chat client: a marker that does not open or close (`2 * 3`, `snake_case`, a
/// `**` left alone) is shown as it is written, and nothing reaches past the line. Whatever it
/// decides, the HTML stays valid: tags come from styles, never from the text.
struct InlineMarkdown {
    private let characters: [Character]
    /// Whether the line has a `](` anywhere, and which of `*` and `_` follow something other than
    /// a space (could close): a line without them answers each `[` or opening marker at once,
    /// however many it holds (`[[[[…`, `*a *a *a …`).
    private let hasLinkMiddle: Bool
    private let closable: Set<UInt8>

    init(_ line: Substring) {
        characters = Array(line)
        var middle = false
        var closable: Set<UInt8> = []
        var previous: Character = " "
        for character in characters {
            if let byte = character.asciiValue {
                if byte == UInt8(ascii: "("), previous == "]" { middle = true }
                if byte == UInt8(ascii: "*") || byte == UInt8(ascii: "_"), !previous.isWhitespace { closable.insert(byte) }
            }
            previous = character
        }
        hasLinkMiddle = middle
        self.closable = closable
    }

    func append(to text: inout StyledText, tags: [HTMLTag]) {
        parse(0..<characters.count, tags: tags, into: &text)
    }

    private func parse(_ range: Range<Int>, tags: [HTMLTag], into text: inout StyledText) {
        // Characters, not a String: the line was split into grapheme clusters once, and a String
        // would be split again when appended.
        var plain: [Character] = []
        var index = range.lowerBound
        let end = range.upperBound
        func flush(_ text: inout StyledText) {
            text.append(plain, tags: tags)
            plain.removeAll(keepingCapacity: true)
        }
        while index < end {
            let character = characters[index]
            // Markers are ASCII: one byte compared, not a Character (a string comparison) per case.
            switch character.asciiValue {
            case UInt8(ascii: "\\"):
                if index + 1 < end, Self.isEscapable(characters[index + 1]) {
                    plain.append(characters[index + 1])
                    index += 2
                    continue
                }
            case UInt8(ascii: "`"):
                let run = self.run(of: "`", at: index, end: end)
                if let close = codeSpanEnd(after: index + run, run: run, end: end) {
                    flush(&text)
                    text.append(codeSpanContent((index + run)..<close), tags: tags + [.code], glued: true)
                    index = close + run
                } else {
                    plain.append(contentsOf: repeatElement("`", count: run))
                    index += run
                }
                continue
            case UInt8(ascii: "["):
                if let link = link(at: index, end: end) {
                    flush(&text)
                    if LinkLabel(link.text).namesAnotherSite(than: link.url) {
                        // `[https://bank.example](https://evil.example)`: the reader sees where it goes.
                        text.append(link.text + " (", tags: tags, glued: true)
                        text.append(link.url, tags: tags + [.link(link.url)], glued: true)
                        text.append(")", tags: tags, glued: true)
                    } else {
                        text.append(link.text, tags: tags + [.link(link.url)], glued: true)
                    }
                    index = link.end
                    continue
                }
            case UInt8(ascii: "<"):
                if let close = autolinkEnd(at: index, end: end) {
                    flush(&text)
                    let url = String(characters[(index + 1)..<(close - 1)])
                    text.append(url, tags: tags + [.link(url)], glued: true)
                    index = close
                    continue
                }
            case UInt8(ascii: "*"), UInt8(ascii: "_"):
                let run = self.run(of: character, at: index, end: end)
                let width = run >= 2 ? 2 : 1
                if canOpen(at: index, width: width, end: end), let close = closer(of: character, width: width, from: index + width, end: end) {
                    flush(&text)
                    let tag: HTMLTag = width == 2 ? .bold : .italic
                    parse((index + width)..<close, tags: tags.contains(tag) ? tags : tags + [tag], into: &text)
                    index = close + width
                } else {
                    plain.append(contentsOf: repeatElement(character, count: run))
                    index += run
                }
                continue
            case UInt8(ascii: "h"):
                if let urlEnd = bareURLEnd(at: index, end: end) {
                    flush(&text)
                    text.append(String(characters[index..<urlEnd]), tags: tags, glued: true)
                    index = urlEnd
                    continue
                }
            default:
                break
            }
            plain.append(character)
            index += 1
        }
        flush(&text)
    }

    /// How far an emphasis, a code span or a link reaches on its line: past it, its marker is
    /// shown as written. Each unmatched marker looks this far, not to the end of the line: a
    /// line of 50,000 `[` or `*a ` (a model repeating itself) stays linear, and the formatter
    /// answers every chat meanwhile.
    static let reach = 2000

    private static func isEscapable(_ character: Character) -> Bool {
        character.isASCII && (character.isPunctuation || character.isSymbol)
    }

    private func run(of marker: Character, at index: Int, end: Int) -> Int {
        var scan = index
        while scan < end, characters[scan] == marker { scan += 1 }
        return scan - index
    }

    /// Where the closing backtick run of exactly `run` backticks starts, if the line has one.
    private func codeSpanEnd(after start: Int, run: Int, end lineEnd: Int) -> Int? {
        let end = min(lineEnd, start + Self.reach)
        var scan = start
        while scan < end {
            guard characters[scan] == "`" else {
                scan += 1
                continue
            }
            let length = self.run(of: "`", at: scan, end: end)
            if length == run { return scan }
            scan += length
        }
        return nil
    }

    /// A code span's text: one space is dropped from each end when both have one (the padding
    /// that lets a span start or end with a backtick), as CommonMark does.
    private func codeSpanContent(_ range: Range<Int>) -> String {
        var content = characters[range]
        if content.count >= 2, content.first == " ", content.last == " ", content.contains(where: { $0 != " " }) {
            content = content.dropFirst().dropLast()
        }
        return String(content)
    }

    /// An emphasis marker opens when text follows it, and `_` only at the start of a word.
    private func canOpen(at index: Int, width: Int, end: Int) -> Bool {
        guard index + width < end, !characters[index + width].isWhitespace else { return false }
        if characters[index] == "_", index > 0, Self.isWordCharacter(characters[index - 1]) { return false }
        return true
    }

    /// Where the marker run that closes an emphasis opened before `start` begins: after text,
    /// of the same marker, long enough (the last `width` of a longer run, so `***x***` is bold
    /// around italics), and for `_` at the end of a word.
    private func closer(of marker: Character, width: Int, from start: Int, end lineEnd: Int) -> Int? {
        guard let byte = marker.asciiValue, closable.contains(byte) else { return nil }
        let end = min(lineEnd, start + Self.reach)
        var scan = start
        while scan < end {
            guard characters[scan] == marker else {
                if characters[scan] == "\\" { scan += 1 }
                scan += 1
                continue
            }
            let length = run(of: marker, at: scan, end: end)
            let after = scan + length
            let fits = width == 1 ? length == 1 : length >= 2
            let wordEnds = marker != "_" || after >= characters.count || !Self.isWordCharacter(characters[after])
            if scan > start, fits, !characters[scan - 1].isWhitespace, wordEnds { return after - width }
            scan = after
        }
        return nil
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// `[text](url)` starting at `index`, when the URL is one Telegram links (http, https, tg).
    private func link(at index: Int, end lineEnd: Int) -> (text: String, url: String, end: Int)? {
        guard hasLinkMiddle else { return nil }
        let end = min(lineEnd, index + Self.reach)
        var scan = index + 1
        var depth = 1
        while scan < end {
            let character = characters[scan]
            if character == "\\", scan + 1 < end, Self.isEscapable(characters[scan + 1]) {
                scan += 2
                continue
            }
            if character == "[" { depth += 1 }
            if character == "]" {
                depth -= 1
                if depth == 0 { break }
            }
            scan += 1
        }
        guard scan + 1 < end, characters[scan + 1] == "(" else { return nil }
        // The label is written only for a link: building it on every `[` of a line of them
        // made the line quadratic.
        var label = ""
        var at = index + 1
        while at < scan {
            if characters[at] == "\\", at + 1 < scan, Self.isEscapable(characters[at + 1]) { at += 1 }
            label.append(characters[at])
            at += 1
        }
        let targetStart = scan + 2
        scan = targetStart
        depth = 1
        while scan < end {
            if characters[scan] == "(" { depth += 1 }
            if characters[scan] == ")" {
                depth -= 1
                if depth == 0 { break }
            }
            scan += 1
        }
        guard scan < end else { return nil }
        var target = String(characters[targetStart..<scan]).trimmingSpaces()
        if let space = target.firstIndex(where: { $0 == " " }) { target = String(target[..<space]) }
        if target.hasPrefix("<"), target.hasSuffix(">") { target = String(target.dropFirst().dropLast()) }
        guard Self.isLinkable(target) else { return nil }
        return (label.isEmpty ? target : label, target, scan + 1)
    }

    /// End (exclusive) of `<https://…>` starting at `index`.
    private func autolinkEnd(at index: Int, end: Int) -> Int? {
        var scan = index + 1
        while scan < end {
            let character = characters[scan]
            if character == ">" { return scan > index + 1 && Self.isLinkable(String(characters[(index + 1)..<scan])) ? scan + 1 : nil }
            if character == " " || character == "<" { return nil }
            scan += 1
        }
        return nil
    }

    /// End (exclusive) of a bare `http(s)://` URL at the start of a word: up to the next space.
    private func bareURLEnd(at index: Int, end: Int) -> Int? {
        if index > 0, Self.isWordCharacter(characters[index - 1]) { return nil }
        let prefix = characters[index..<min(end, index + 8)]
        guard prefix.starts(with: "https://") || prefix.starts(with: "http://") else { return nil }
        var scan = index
        while scan < end, !characters[scan].isWhitespace { scan += 1 }
        return scan
    }

    /// Web addresses only. Not Telegram's `tg://`: from model text, a `tg://user?id=` link
    /// would mention someone, and `tg://proxy` or `tg://join` open dialogs a reader may trust.
    private static func isLinkable(_ url: String) -> Bool {
        let lower = url.lowercased()
        return (lower.hasPrefix("https://") || lower.hasPrefix("http://")) && !url.contains(where: \.isWhitespace)
    }
}
