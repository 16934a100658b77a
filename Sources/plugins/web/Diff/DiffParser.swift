import PiRelaySDK

/// `git diff` output read into files and hunks for a page: each file with its +/- counts,
/// binary files marked, big files cut at `maxLinesPerFile`, and files the attachments guard
/// treats as secret (`SecretPattern`, in the repository's top folder: one that is itself where
/// credentials live, `~/.aws`, makes its files secret) left out entirely. Pure: text in, JSON out.
enum DiffParser {
    static let maxLinesPerFile = 2000

    static func files(_ lines: [String], in top: String = "") -> [JSONValue] {
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
            if SecretPattern.match(file["path"]?.stringValue ?? "", in: top) == nil,
                SecretPattern.match(file["oldPath"]?.stringValue ?? "", in: top) == nil
            {
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
                    current?["oldPath"] = .string(Self.unquoted(String(line.dropFirst(12))))
                    current?["status"] = "renamed"
                    continue
                }
                if line.hasPrefix("rename to ") { current?["path"] = .string(Self.unquoted(String(line.dropFirst(10)))); continue }
                if line.hasPrefix("Binary files ") || line == "GIT binary patch" { current?["binary"] = true; continue }
                if line.hasPrefix("+++ ") {
                    // git ends a name holding a space with a tab here.
                    var target = String(line.dropFirst(4))
                    if target.hasSuffix("\t") { target.removeLast() }
                    if target != "/dev/null" { current?["path"] = .string(Self.strip(Self.unquoted(target))) }
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

    /// `diff --git a/x b/x` → `x` (the b side; renames are corrected by `rename to`), and
    /// `diff --git "a/x\"y" "b/x\"y"` → `x"y`. Outside a rename the header names one file twice,
    /// so a name holding `" b/"` (`a/art b/logo.png b/art b/logo.png`) is read as the half the
    /// two sides share: a binary file has no `+++` line to correct it, and the secret-file check
    /// must see its whole name.
    static func path(fromHeader line: String) -> String {
        let rest = String(line.dropFirst("diff --git ".count))
        if rest.hasSuffix("\""), let range = rest.ranges(of: " \"b/").last {
            return strip(unquoted(String(rest[rest.index(after: range.lowerBound)...])))
        }
        let bytes = Array(rest.utf8)
        let name = (bytes.count - 5) / 2
        if bytes.count >= 5, bytes.count % 2 == 1, rest.hasPrefix("a/"), bytes[2 + name..<5 + name].elementsEqual(" b/".utf8),
            bytes[2..<2 + name].elementsEqual(bytes[(5 + name)...])
        {
            return String(decoding: bytes[(5 + name)...], as: UTF8.self)
        }
        if let range = rest.ranges(of: " b/").last { return String(rest[range.upperBound...]) }
        return rest
    }

    private static func strip(_ side: String) -> String {
        side.hasPrefix("a/") || side.hasPrefix("b/") ? String(side.dropFirst(2)) : side
    }

    /// A name as git prints one holding `"`, `\` or a control character, even with
    /// `core.quotepath` off: in quotes, with C escapes and octal bytes. Read back so that the
    /// secret-file check sees the name as it is (`server.key`, not `server.key"`).
    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        let escapes: [UInt8: UInt8] = [
            UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11,
            UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13,
        ]
        let body = Array(text.utf8.dropFirst().dropLast())
        var bytes: [UInt8] = []
        var index = 0
        while index < body.count {
            let byte = body[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < body.count else {
                bytes.append(byte)
                continue
            }
            let next = body[index]
            if let octal = Self.octal(body, at: index) {
                bytes.append(octal)
                index += 3
            } else {
                bytes.append(escapes[next] ?? next)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Three octal digits at `index` (`\303`), as the byte they name.
    private static func octal(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 3 <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + 3] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) else { return nil }
            value = value * 8 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= 255 ? UInt8(value) : nil
    }
}
