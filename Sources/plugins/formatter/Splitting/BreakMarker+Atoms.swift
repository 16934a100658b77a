extension BreakMarker {
    /// Marks the inside of inline code, links, images, autolinks and bare URLs on one text line as
    /// forbidden: a cut there would break their rendering in both chunks.
    mutating func markAtoms(_ start: Int, _ end: Int) {
        var k = start
        while k < end {
            let b = kinds[k]
            if b == GraphemeMap.notASCII { k += 1; continue }
            if b == UInt8(ascii: "\\") { k += 2; continue }
            var atomEnd: Int?
            switch b {
            case UInt8(ascii: "`"): atomEnd = inlineCodeEnd(k, end)
            case UInt8(ascii: "["): atomEnd = linkEnd(k, end)
            case UInt8(ascii: "!") where k + 1 < end && kinds[k + 1] == UInt8(ascii: "["): atomEnd = linkEnd(k + 1, end)
            case UInt8(ascii: "<"): atomEnd = autolinkEnd(k, end)
            case UInt8(ascii: "h") where k == start || !isWordUnit(k - 1): atomEnd = bareURLEnd(k, end)
            default: break
            }
            if let e = atomEnd, e > k + 1 {
                for j in (k + 1)..<e { breaks[j] = .forbidden }
                k = e
            } else if b == UInt8(ascii: "`") {
                // An unmatched run of backticks is literal text: skip the whole run.
                while k < end, kinds[k] == UInt8(ascii: "`") { k += 1 }
            } else {
                k += 1
            }
        }
    }

    /// Forbids cuts that would leave a piece of a line looking like a fence line on its own in
    /// either chunk: around any run of three or more backticks or tildes, with the spaces before
    /// it, and anywhere in a line that starts with one.
    mutating func markFenceRuns(_ start: Int, _ end: Int) {
        var k = start
        var spaceStart = start
        while k < end {
            let b = kinds[k]
            if b == 0x20 || b == 0x09 {
                if k == start || !isSpace(k - 1) { spaceStart = k }
                k += 1
                continue
            }
            guard b == UInt8(ascii: "`") || b == UInt8(ascii: "~") else { k += 1; continue }
            var r = k
            while r < end, kinds[r] == b { r += 1 }
            if r - k >= 3 {
                let from = k > start && isSpace(k - 1) ? spaceStart : k
                if from == start {
                    for j in (start + 1)...end { breaks[j] = .forbidden }
                    return
                }
                for j in from...r { breaks[j] = .forbidden }
            }
            k = r
        }
    }

    private func isWordUnit(_ k: Int) -> Bool {
        let b = kinds[k]
        if b == GraphemeMap.notASCII { return true }
        return (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: "_")
    }

    /// End (exclusive) of the code span whose opening backtick run starts at `k`.
    private func inlineCodeEnd(_ k: Int, _ end: Int) -> Int? {
        var j = k
        while j < end, kinds[j] == UInt8(ascii: "`") { j += 1 }
        let run = j - k
        while j < end {
            if kinds[j] == UInt8(ascii: "`") {
                var r = j
                while r < end, kinds[r] == UInt8(ascii: "`") { r += 1 }
                if r - j == run { return r }
                j = r
            } else {
                j += 1
            }
        }
        return nil
    }

    /// End (exclusive) of `[text](target)` starting at the `[` at `k`.
    private func linkEnd(_ k: Int, _ end: Int) -> Int? {
        var j = k + 1
        var depth = 1
        while j < end {
            let b = kinds[j]
            if b == UInt8(ascii: "\\") { j += 2; continue }
            if b == UInt8(ascii: "[") { depth += 1 }
            if b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { break }
            }
            j += 1
        }
        guard j + 1 < end, kinds[j + 1] == UInt8(ascii: "(") else { return nil }
        j += 2
        depth = 1
        while j < end {
            let b = kinds[j]
            if b == UInt8(ascii: "\\") { j += 2; continue }
            if b == UInt8(ascii: "(") { depth += 1 }
            if b == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return j + 1 }
            }
            j += 1
        }
        return nil
    }

    /// End (exclusive) of `<scheme:...>` starting at `k`.
    private func autolinkEnd(_ k: Int, _ end: Int) -> Int? {
        guard hasPrefix("http", at: k + 1, end) || hasPrefix("mailto:", at: k + 1, end) else { return nil }
        var j = k + 1
        while j < end {
            let b = kinds[j]
            if b == UInt8(ascii: ">") { return j + 1 }
            if b == 0x20 || b == UInt8(ascii: "<") { return nil }
            j += 1
        }
        return nil
    }

    /// End (exclusive) of a bare `http(s)://` URL starting at `k`: up to the next space.
    private func bareURLEnd(_ k: Int, _ end: Int) -> Int? {
        guard hasPrefix("https://", at: k, end) || hasPrefix("http://", at: k, end) else { return nil }
        var j = k
        while j < end, !isSpace(j) { j += 1 }
        return j
    }

    private func hasPrefix(_ prefix: StaticString, at k: Int, _ end: Int) -> Bool {
        var j = k
        for i in 0..<prefix.utf8CodeUnitCount {
            guard j < end, kinds[j] == prefix.utf8Start[i] else { return false }
            j += 1
        }
        return true
    }
}
