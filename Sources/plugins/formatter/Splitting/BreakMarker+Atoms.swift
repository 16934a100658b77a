extension BreakMarker {
    /// Marks the inside of inline code, links, images, autolinks and bare URLs on one text line as
    /// forbidden: a cut there would break their rendering in both chunks.
    mutating func markAtoms(_ start: Int, _ end: Int) {
        var unit = start
        while unit < end {
            let kind = kinds[unit]
            if kind == GraphemeMap.notASCII { unit += 1; continue }
            if kind == UInt8(ascii: "\\") { unit += 2; continue }
            var atomEnd: Int?
            switch kind {
            case UInt8(ascii: "`"): atomEnd = inlineCodeEnd(unit, end)
            case UInt8(ascii: "["): atomEnd = linkEnd(unit, end)
            case UInt8(ascii: "!") where unit + 1 < end && kinds[unit + 1] == UInt8(ascii: "["): atomEnd = linkEnd(unit + 1, end)
            case UInt8(ascii: "<"): atomEnd = autolinkEnd(unit, end)
            case UInt8(ascii: "h") where unit == start || !isWordUnit(unit - 1): atomEnd = bareURLEnd(unit, end)
            default: break
            }
            if let atomEnd, atomEnd > unit + 1 {
                for boundary in (unit + 1)..<atomEnd { breaks[boundary] = .forbidden }
                unit = atomEnd
            } else if kind == UInt8(ascii: "`") {
                // An unmatched run of backticks is literal text: skip the whole run.
                while unit < end, kinds[unit] == UInt8(ascii: "`") { unit += 1 }
            } else {
                unit += 1
            }
        }
    }

    /// Forbids cuts that would leave a piece of a line looking like a fence line on its own in
    /// either chunk: around any run of three or more backticks or tildes, with the spaces before
    /// it, and anywhere in a line that starts with one.
    mutating func markFenceRuns(_ start: Int, _ end: Int) {
        var unit = start
        var spaceStart = start
        while unit < end {
            let kind = kinds[unit]
            if kind == 0x20 || kind == 0x09 {
                if unit == start || !isSpace(unit - 1) { spaceStart = unit }
                unit += 1
                continue
            }
            guard kind == UInt8(ascii: "`") || kind == UInt8(ascii: "~") else { unit += 1; continue }
            var runEnd = unit
            while runEnd < end, kinds[runEnd] == kind { runEnd += 1 }
            if runEnd - unit >= 3 {
                let from = unit > start && isSpace(unit - 1) ? spaceStart : unit
                if from == start {
                    for boundary in (start + 1)...end { breaks[boundary] = .forbidden }
                    return
                }
                for boundary in from...runEnd { breaks[boundary] = .forbidden }
            }
            unit = runEnd
        }
    }

    private func isWordUnit(_ unit: Int) -> Bool {
        let kind = kinds[unit]
        if kind == GraphemeMap.notASCII { return true }
        return (kind >= 0x30 && kind <= 0x39) || (kind | 0x20 >= 0x61 && kind | 0x20 <= 0x7A) || kind == UInt8(ascii: "_")
    }

    /// End (exclusive) of the code span whose opening backtick run starts at `unit`.
    private func inlineCodeEnd(_ unit: Int, _ end: Int) -> Int? {
        var scan = unit
        while scan < end, kinds[scan] == UInt8(ascii: "`") { scan += 1 }
        let run = scan - unit
        while scan < end {
            if kinds[scan] == UInt8(ascii: "`") {
                var runEnd = scan
                while runEnd < end, kinds[runEnd] == UInt8(ascii: "`") { runEnd += 1 }
                if runEnd - scan == run { return runEnd }
                scan = runEnd
            } else {
                scan += 1
            }
        }
        return nil
    }

    /// End (exclusive) of `[text](target)` starting at the `[` at `unit`.
    private func linkEnd(_ unit: Int, _ end: Int) -> Int? {
        var scan = unit + 1
        var depth = 1
        while scan < end {
            let kind = kinds[scan]
            if kind == UInt8(ascii: "\\") { scan += 2; continue }
            if kind == UInt8(ascii: "[") { depth += 1 }
            if kind == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { break }
            }
            scan += 1
        }
        guard scan + 1 < end, kinds[scan + 1] == UInt8(ascii: "(") else { return nil }
        scan += 2
        depth = 1
        while scan < end {
            let kind = kinds[scan]
            if kind == UInt8(ascii: "\\") { scan += 2; continue }
            if kind == UInt8(ascii: "(") { depth += 1 }
            if kind == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return scan + 1 }
            }
            scan += 1
        }
        return nil
    }

    /// End (exclusive) of `<scheme:...>` starting at `unit`.
    private func autolinkEnd(_ unit: Int, _ end: Int) -> Int? {
        guard hasPrefix("http", at: unit + 1, end) || hasPrefix("mailto:", at: unit + 1, end) else { return nil }
        var scan = unit + 1
        while scan < end {
            let kind = kinds[scan]
            if kind == UInt8(ascii: ">") { return scan + 1 }
            if kind == 0x20 || kind == UInt8(ascii: "<") { return nil }
            scan += 1
        }
        return nil
    }

    /// End (exclusive) of a bare `http(s)://` URL starting at `unit`: up to the next space.
    private func bareURLEnd(_ unit: Int, _ end: Int) -> Int? {
        guard hasPrefix("https://", at: unit, end) || hasPrefix("http://", at: unit, end) else { return nil }
        var scan = unit
        while scan < end, !isSpace(scan) { scan += 1 }
        return scan
    }

    private func hasPrefix(_ prefix: StaticString, at unit: Int, _ end: Int) -> Bool {
        var scan = unit
        for index in 0..<prefix.utf8CodeUnitCount {
            guard scan < end, kinds[scan] == prefix.utf8Start[index] else { return false }
            scan += 1
        }
        return true
    }
}
