import PiRelaySDK

/// `git diff` output read into files and hunks for a page: each file with its +/- counts,
/// binary files marked, big files cut at `maxLinesPerFile`, and files the attachments guard
/// treats as secret (`SecretPattern`) left out entirely. Pure: text in, JSON out.
enum DiffParser {
    static let maxLinesPerFile = 2000

    static func files(_ lines: [String]) -> [JSONValue] {
        var files: [JSONValue] = []
        var current: JSONValue?
        var hunks: [JSONValue] = []
        var hunk: (header: String, lines: [JSONValue])?
        var shown = 0
        var added = 0
        var removed = 0

        func closeHunk() {
            if let open = hunk { hunks.append(["header": .string(open.header), "lines": .array(open.lines)]) }
            hunk = nil
        }
        func closeFile() {
            closeHunk()
            guard var file = current else { return }
            file["hunks"] = .array(hunks)
            file["added"] = JSONValue(added)
            file["removed"] = JSONValue(removed)
            if shown > maxLinesPerFile { file["truncated"] = true }
            if SecretPattern.match(file["path"]?.stringValue ?? "") == nil, SecretPattern.match(file["oldPath"]?.stringValue ?? "") == nil {
                files.append(file)
            }
            current = nil
            hunks = []
            shown = 0
            added = 0
            removed = 0
        }

        for line in lines {
            if line.hasPrefix("diff --git ") {
                closeFile()
                let path = Self.path(fromHeader: line)
                current = ["path": .string(path), "status": "modified"]
                continue
            }
            guard current != nil else { continue }
            if hunk == nil {
                if line.hasPrefix("new file mode") { current?["status"] = "added"; continue }
                if line.hasPrefix("deleted file mode") { current?["status"] = "deleted"; continue }
                if line.hasPrefix("rename from ") {
                    current?["oldPath"] = .string(String(line.dropFirst(12)))
                    current?["status"] = "renamed"
                    continue
                }
                if line.hasPrefix("rename to ") { current?["path"] = .string(String(line.dropFirst(10))); continue }
                if line.hasPrefix("Binary files ") || line == "GIT binary patch" { current?["binary"] = true; continue }
                if line.hasPrefix("+++ ") {
                    // git ends a name holding a space with a tab here.
                    var target = String(line.dropFirst(4))
                    if target.hasSuffix("\t") { target.removeLast() }
                    if target != "/dev/null" { current?["path"] = .string(Self.strip(target)) }
                    continue
                }
                if line.hasPrefix("--- ") { continue }
            }
            if line.hasPrefix("@@") {
                closeHunk()
                hunk = (line, [])
                continue
            }
            guard hunk != nil, let first = line.first else { continue }
            switch first {
            case "+": added += 1
            case "-": removed += 1
            case " ", "\\": break
            default: continue
            }
            shown += 1
            if shown <= maxLinesPerFile { hunk?.lines.append(.string(line)) }
        }
        closeFile()
        return files
    }

    /// `diff --git a/x b/x` → `x` (the b side; renames are corrected by `rename to`).
    static func path(fromHeader line: String) -> String {
        let rest = String(line.dropFirst("diff --git ".count))
        if let range = rest.ranges(of: " b/").last { return String(rest[range.upperBound...]) }
        return rest
    }

    private static func strip(_ side: String) -> String {
        side.hasPrefix("a/") || side.hasPrefix("b/") ? String(side.dropFirst(2)) : side
    }
}
