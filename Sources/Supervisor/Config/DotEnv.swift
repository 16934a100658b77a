/// `$PI_RELAYD_HOME/.env`: secrets as `KEY=VALUE` lines, so they live in one private file instead
/// of config.yaml or a shell profile.
///
/// Accepted: blank lines, `# comments`, an optional `export ` prefix, unquoted values (a `#` after
/// a space starts a comment), 'single quoted' values taken literally, and "double quoted" values
/// with `\n`, `\t`, `\r`, `\"`, `\\` and `\$` escapes. Errors never quote the line: it may hold a
/// secret.
package enum DotEnv {
    package struct Entry: Sendable, Equatable {
        package let key: String
        package let value: String
        package let line: Int
    }

    package static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> [Entry] {
        var entries: [Entry] = []
        var lineNumber = 0
        // A byte-order mark, as some Windows editors save UTF-8, is no part of the first key
        // (config.yaml takes one too).
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        // Split bytes, not Characters: "\r\n" is a single Character and would never match "\n".
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            // Refused rather than read with U+FFFD in place of the bytes: a secret changed that way
            // fails far from here, and `setup` would write the changed line back.
            guard let text = String(validating: line, as: UTF8.self) else {
                throw ConfigError(.syntax, file: file, at: .init(line: lineNumber, column: 1), "this line is not UTF-8 text; save the file as UTF-8")
            }
            if let entry = try parseLine(Array(text), number: lineNumber, file: file) {
                entries.append(entry)
            }
        }
        return entries
    }

    private static func parseLine(_ chars: [Character], number: Int, file: String) throws(ConfigError) -> Entry? {
        var position = 0
        func skipBlanks() { while position < chars.count, chars[position] == " " || chars[position] == "\t" { position += 1 } }
        func fail(_ message: String, at column: Int) -> ConfigError {
            ConfigError(.syntax, file: file, at: .init(line: number, column: column + 1), message)
        }

        skipBlanks()
        if position == chars.count || chars[position] == "#" { return nil }
        if chars[position...].starts(with: "export"), position + 6 < chars.count, chars[position + 6] == " " || chars[position + 6] == "\t" {
            position += 6
            skipBlanks()
        }
        let keyStart = position
        while position < chars.count, chars[position] != "=", chars[position] != " ", chars[position] != "\t" { position += 1 }
        let key = String(chars[keyStart..<position])
        skipBlanks()
        guard position < chars.count, chars[position] == "=" else {
            throw fail("expected KEY=VALUE", at: keyStart)
        }
        guard ConfigField.isEnvironmentName(key) else {
            throw fail("expected KEY=VALUE, where KEY is letters, digits and _ (not starting with a digit)", at: keyStart)
        }
        position += 1
        let afterEquals = position
        skipBlanks()

        var value = ""
        if position < chars.count, chars[position] == "\"" || chars[position] == "'" {
            let quote = chars[position]
            let open = position
            position += 1
            var closed = false
            while position < chars.count {
                let character = chars[position]
                if character == quote { closed = true; position += 1; break }
                if quote == "\"", character == "\\", position + 1 < chars.count {
                    let next = chars[position + 1]
                    switch next {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "r": value.append("\r")
                    case "\"", "\\", "$": value.append(next)
                    default: value.append(character); value.append(next)
                    }
                    position += 2
                    continue
                }
                value.append(character)
                position += 1
            }
            guard closed else {
                throw fail("the \(quote == "\"" ? "double" : "single") quote opened here is not closed on this line", at: open)
            }
            skipBlanks()
            guard position == chars.count || chars[position] == "#" else {
                throw fail("unexpected text after the closing quote", at: position)
            }
        } else {
            var end = position
            while end < chars.count {
                // A # after a space or tab starts a comment, the blanks right after = included
                // (`KEY= # fill in`: an empty value, not the comment).
                if chars[end] == "#", end > afterEquals, chars[end - 1] == " " || chars[end - 1] == "\t" { break }
                end += 1
            }
            value = String(chars[position..<end]).trimmingBlanks()
        }
        return Entry(key: key, value: value, line: number)
    }
}

private extension String {
    package func trimmingBlanks() -> String {
        var trimmed = Substring(self)
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
