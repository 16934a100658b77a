/// A fenced code block as opened by one line (```` ```swift ```` or `~~~`): enough to close it at
/// the end of a chunk and to reopen it, with its language, at the start of the next one.
package struct Fence: Sendable, Hashable {
    /// The fence character as a byte: a backtick or a tilde.
    let marker: UInt8
    let length: Int
    /// The info string after the marker, trimmed (`swift`, `python title="x.py"`, or empty).
    let info: String

    /// The longest reopening line a chunk pays for; a longer info string is cut to its language.
    static let maxReopenLength = 24

    var markerRun: String { String(repeating: Character(Unicode.Scalar(marker)), count: length) }

    var closingLine: String { markerRun }

    /// The first word of the info string.
    var language: Substring { info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "" }

    /// The line that reopens this fence in the next chunk. Long info strings would eat the budget
    /// of every chunk of a long block, so past `maxReopenLength` only the language is kept.
    var reopeningLine: String {
        let full = markerRun + info
        if full.utf16.count <= Self.maxReopenLength { return full }
        let short = markerRun + language
        return short.utf16.count <= Self.maxReopenLength ? short : markerRun
    }

    /// Parses one line (without its LF) as an opening fence. Any indentation is accepted, more
    /// than CommonMark's three spaces, because chat renderers open fences inside nested lists too.
    /// A marker longer than `maxReopenLength` is not taken for a fence: closing and reopening it
    /// in every chunk could leave no room for text, and a chunk over the limit is a message the
    /// chat refuses (found by the splitter fuzz target).
    static func opening<Line: Collection<UInt8>>(_ line: Line) -> Fence? {
        var i = line.startIndex
        while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 { i = line.index(after: i) }
        guard i < line.endIndex else { return nil }
        let marker = line[i]
        guard marker == UInt8(ascii: "`") || marker == UInt8(ascii: "~") else { return nil }
        var length = 0
        while i < line.endIndex, line[i] == marker {
            length += 1
            i = line.index(after: i)
        }
        guard length >= 3, length <= maxReopenLength else { return nil }
        let rest = line[i...]
        // A backtick fence's info string cannot contain backticks: "```a```" is inline code.
        if marker == UInt8(ascii: "`"), rest.contains(marker) { return nil }
        let info = String(decoding: rest, as: UTF8.self).trimmingSpaces()
        return Fence(marker: marker, length: length, info: info)
    }

    /// True when `line` (without its LF) closes this fence: the same character, at least as many
    /// of them, and nothing but spaces after.
    func isClosed<Line: Collection<UInt8>>(by line: Line) -> Bool {
        var i = line.startIndex
        while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 { i = line.index(after: i) }
        var count = 0
        while i < line.endIndex, line[i] == marker {
            count += 1
            i = line.index(after: i)
        }
        guard count >= length else { return false }
        while i < line.endIndex {
            let b = line[i]
            guard b == 0x20 || b == 0x09 || b == 0x0D else { return false }
            i = line.index(after: i)
        }
        return true
    }
}
