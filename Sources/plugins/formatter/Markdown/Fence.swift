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
        var position = line.startIndex
        while position < line.endIndex, line[position] == 0x20 || line[position] == 0x09 { position = line.index(after: position) }
        guard position < line.endIndex else { return nil }
        let marker = line[position]
        guard marker == UInt8(ascii: "`") || marker == UInt8(ascii: "~") else { return nil }
        var length = 0
        while position < line.endIndex, line[position] == marker {
            length += 1
            position = line.index(after: position)
        }
        guard length >= 3, length <= maxReopenLength else { return nil }
        let rest = line[position...]
        // A backtick fence's info string cannot contain backticks: "```a```" is inline code.
        if marker == UInt8(ascii: "`"), rest.contains(marker) { return nil }
        let info = String(decoding: rest, as: UTF8.self).trimmingSpaces()
        return Fence(marker: marker, length: length, info: info)
    }

    /// True when `line` (without its LF) closes this fence: the same character, at least as many
    /// of them, and nothing but spaces after.
    func isClosed<Line: Collection<UInt8>>(by line: Line) -> Bool {
        var position = line.startIndex
        while position < line.endIndex, line[position] == 0x20 || line[position] == 0x09 { position = line.index(after: position) }
        var count = 0
        while position < line.endIndex, line[position] == marker {
            count += 1
            position = line.index(after: position)
        }
        guard count >= length else { return false }
        while position < line.endIndex {
            let byte = line[position]
            guard byte == 0x20 || byte == 0x09 || byte == 0x0D else { return false }
            position = line.index(after: position)
        }
        return true
    }
}
