extension DotEnv {
    /// `.env` text with `key` set to `value`: the first line setting `key` is replaced, later ones
    /// removed (they would win), and every other line kept as it was; a new key is appended.
    /// `value` must be one line without a single quote (it is written single-quoted when it has
    /// characters an unquoted value would lose).
    package static func setting(_ key: String, to value: String, in bytes: [UInt8]) -> [UInt8] {
        let assignment = Array((key + "=" + quoted(value)).utf8)
        // Lines as bytes: the ones kept are written back exactly, whatever their encoding.
        var lines = bytes.isEmpty ? [] : bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        var written = false
        var kept: [[UInt8]] = []
        for line in lines {
            guard Self.key(of: String(decoding: line, as: UTF8.self)) == key else {
                kept.append(line)
                continue
            }
            if !written { kept.append(assignment) }
            written = true
        }
        if !written { kept.append(assignment) }
        return Array(kept.joined(separator: [UInt8(ascii: "\n")])) + [UInt8(ascii: "\n")]
    }

    /// Whether `value` can be written by `setting`.
    package static func canWrite(_ value: String) -> Bool {
        !value.isEmpty && !value.contains("'") && !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    private static func quoted(_ value: String) -> String {
        let plain = value.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)) || "._:/+=@-".unicodeScalars.contains($0)
        }
        return plain ? value : "'" + value + "'"
    }

    /// The key a line sets, if it sets one (`KEY=`, `export KEY=`).
    private static func key(of line: String) -> String? {
        func blank(_ character: Character) -> Bool { character == " " || character == "\t" }
        var rest = Substring(line).drop(while: blank)
        if rest.hasPrefix("export ") || rest.hasPrefix("export\t") {
            rest = rest.dropFirst(7).drop(while: blank)
        }
        guard let equals = rest.firstIndex(of: "=") else { return nil }
        let key = String(rest[..<equals].reversed().drop(while: blank).reversed())
        return key.isEmpty || key.hasPrefix("#") ? nil : key
    }
}
