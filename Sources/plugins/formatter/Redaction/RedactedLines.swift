#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Complete lines of some text, with no private key block's start, and what they redact to. Every
/// rule of `Redactor` but a key block stays within one line, so redacting keeps each line a line:
/// the n-th line of `raw` redacts to the n-th line of `redacted`, and any text that starts with
/// some of these lines can take their redaction as it is.
struct RedactedLines: Sendable {
    let raw: String
    let redacted: String
    /// The UTF-8 offset just past each LF, in `raw` and in `redacted`: one per line.
    let rawEnds: [Int]
    let redactedEnds: [Int]

    /// Lines redacted from nothing; nil when their redaction did not keep every line a line.
    init?(raw: String, redacted: String) {
        self.init(keeping: 0, of: nil, raw: raw, redacted: redacted)
    }

    /// The first `lines` lines of `earlier`, then the lines of `raw` after them, which redact to
    /// the lines of `redacted` after `earlier`'s first `lines`. Nil when the two do not have as
    /// many lines each, which a redaction that kept every line a line would give.
    init?(keeping lines: Int, of earlier: RedactedLines?, raw: String, redacted: String) {
        let rawStart = lines == 0 ? 0 : earlier!.rawEnds[lines - 1]
        let redactedStart = lines == 0 ? 0 : earlier!.redactedEnds[lines - 1]
        var rawEnds = Array(earlier?.rawEnds.prefix(lines) ?? [])
        var redactedEnds = Array(earlier?.redactedEnds.prefix(lines) ?? [])
        Self.appendLineEnds(of: raw, from: rawStart, to: &rawEnds)
        Self.appendLineEnds(of: redacted, from: redactedStart, to: &redactedEnds)
        guard rawEnds.count == redactedEnds.count, rawEnds.last == raw.utf8.count, redactedEnds.last == redacted.utf8.count else {
            return nil
        }
        (self.raw, self.redacted, self.rawEnds, self.redactedEnds) = (raw, redacted, rawEnds, redactedEnds)
    }

    var lineCount: Int { rawEnds.count }
    /// What it costs to keep: both texts' bytes.
    var cost: Int { raw.utf8.count + redacted.utf8.count }

    /// How many of these lines `text` starts with, each whole, LF included.
    func sharedLines(with text: String) -> Int {
        let common = Self.commonPrefixLength(raw, text)
        // The number of line ends at or before `common`.
        var low = 0
        var high = rawEnds.count
        while low < high {
            let middle = (low + high) / 2
            if rawEnds[middle] <= common { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first `lines` lines: how many bytes of raw text they are, and their redaction.
    func prefix(lines: Int) -> (rawBytes: Int, redacted: Substring) {
        guard lines > 0 else { return (0, "") }
        let end = redacted.utf8.index(redacted.utf8.startIndex, offsetBy: redactedEnds[lines - 1])
        return (rawEnds[lines - 1], redacted[..<end])
    }

    private static func appendLineEnds(of text: String, from start: Int, to ends: inout [Int]) {
        var offset = start
        for byte in text.utf8.dropFirst(start) {
            offset += 1
            if byte == 0x0A { ends.append(offset) }
        }
    }

    /// How many leading bytes `a` and `b` have in common: `memcmp` a block at a time where both
    /// are contiguous, then byte by byte inside the first block that differs.
    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                let count = min(left.count, right.count)
                guard count > 0 else { return 0 }
                let (l, r) = (left.baseAddress!, right.baseAddress!)
                var offset = 0
                let block = 256
                while offset + block <= count, memcmp(l + offset, r + offset, block) == 0 { offset += block }
                while offset < count, l[offset] == r[offset] { offset += 1 }
                return offset
            }
        }
        if let fast, let length = fast { return length }
        return zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }
}
