/// `$PI_RELAYD_HOME/.env`: secrets as `KEY=VALUE` lines, so they live in one private file instead
/// of config.yaml or a shell profile.
///
/// Accepted: blank lines, `# comments`, an optional `export ` prefix, unquoted values (a `#` after
/// a space starts a comment), 'single quoted' values taken literally, and "double quoted" values
/// with `\n`, `\t`, `\r`, `\"`, `\\` and `\$` escapes. Errors never quote the line: it may hold a
/// secret.
enum DotEnv {
    struct Entry: Sendable, Equatable {
        let key: String
        let value: String
        let line: Int
    }

    static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> [Entry] {
        var entries: [Entry] = []
        var lineNumber = 0
        // Split bytes, not Characters: "\r\n" is a single Character and would never match "\n".
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            if let entry = try parseLine(Array(String(decoding: line, as: UTF8.self)), number: lineNumber, file: file) {
                entries.append(entry)
            }
        }
        return entries
    }

    private static func parseLine(_ chars: [Character], number: Int, file: String) throws(ConfigError) -> Entry? {
        var i = 0
        func skipBlanks() { while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 } }
        func fail(_ message: String, at column: Int) -> ConfigError {
            ConfigError(.syntax, file: file, at: .init(line: number, column: column + 1), message)
        }

        skipBlanks()
        if i == chars.count || chars[i] == "#" { return nil }
        if chars[i...].starts(with: "export"), i + 6 < chars.count, chars[i + 6] == " " || chars[i + 6] == "\t" {
            i += 6
            skipBlanks()
        }
        let keyStart = i
        while i < chars.count, chars[i] != "=", chars[i] != " ", chars[i] != "\t" { i += 1 }
        let key = String(chars[keyStart..<i])
        skipBlanks()
        guard i < chars.count, chars[i] == "=" else {
            throw fail("expected KEY=VALUE", at: keyStart)
        }
        guard ConfigField.isEnvironmentName(key) else {
            throw fail("expected KEY=VALUE, where KEY is letters, digits and _ (not starting with a digit)", at: keyStart)
        }
        i += 1
        skipBlanks()

        var value = ""
        if i < chars.count, chars[i] == "\"" || chars[i] == "'" {
            let quote = chars[i]
            let open = i
            i += 1
            var closed = false
            while i < chars.count {
                let c = chars[i]
                if c == quote { closed = true; i += 1; break }
                if quote == "\"", c == "\\", i + 1 < chars.count {
                    let next = chars[i + 1]
                    switch next {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "r": value.append("\r")
                    case "\"", "\\", "$": value.append(next)
                    default: value.append(c); value.append(next)
                    }
                    i += 2
                    continue
                }
                value.append(c)
                i += 1
            }
            guard closed else {
                throw fail("the \(quote == "\"" ? "double" : "single") quote opened here is not closed on this line", at: open)
            }
            skipBlanks()
            guard i == chars.count || chars[i] == "#" else {
                throw fail("unexpected text after the closing quote", at: i)
            }
        } else {
            var end = i
            while end < chars.count {
                if chars[end] == "#", end > i, chars[end - 1] == " " || chars[end - 1] == "\t" { break }
                end += 1
            }
            value = String(chars[i..<end]).trimmingBlanks()
        }
        return Entry(key: key, value: value, line: number)
    }
}

private extension String {
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
