/// An independent reading of a message the way Telegram's `parse_mode: HTML` reads it (spec
/// /work/shared/specs/telegram-bot-api.md §7 and §7.1), stricter where the formatter promises
/// more: only the tags the formatter writes (`b`, `i`, `code`, `pre`, `a`, `blockquote`), every
/// tag closed in reverse order, `code class` only directly inside `pre`, no `code`/`pre`/`a`
/// inside each other, no nested quotes, only the entities Telegram knows, no stray `<`, `&` or
/// `"` in an attribute, and a visible length (code points after entity parsing, ends trimmed)
/// between 1 and the limit. Written without the plugin's code, so the two cannot agree by accident.
enum TelegramHTMLChecker {
    /// The message's visible text, after entity parsing and trimming; throws the first rule broken.
    @discardableResult
    static func check(_ message: String, limit: Int = 4096) throws -> String {
        let scalars = Array(message.unicodeScalars)
        var stack: [String] = []
        var visible: [Unicode.Scalar] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<" {
                guard let close = scalars[index...].firstIndex(of: ">") else { throw Violation("unclosed tag at \(index)") }
                let tag = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
                try read(tag, stack: &stack)
                index = close + 1
            } else if scalar == "&" {
                guard let semicolon = scalars[index...].prefix(12).firstIndex(of: ";") else { throw Violation("bare & at \(index)") }
                let name = String(String.UnicodeScalarView(scalars[(index + 1)..<semicolon]))
                visible.append(try entity(name))
                index = semicolon + 1
            } else if scalar == ">" {
                throw Violation("unescaped > at \(index)")
            } else {
                visible.append(scalar)
                index += 1
            }
        }
        guard stack.isEmpty else { throw Violation("unclosed \(stack) at the end") }
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        let trimmed = String(String.UnicodeScalarView(visible.drop(while: isSpace).reversed().drop(while: isSpace).reversed()))
        guard !trimmed.isEmpty else { throw Violation("the message is empty after trimming") }
        let length = trimmed.unicodeScalars.count
        guard length <= limit else { throw Violation("\(length) visible characters, limit \(limit)") }
        return trimmed
    }

    private static func read(_ tag: String, stack: inout [String]) throws {
        if tag.hasPrefix("/") {
            let name = String(tag.dropFirst())
            guard let top = stack.last else { throw Violation("unexpected </\(name)>") }
            guard top == name else { throw Violation("expected </\(top)>, found </\(name)>") }
            stack.removeLast()
            return
        }
        let name = String(tag.prefix(while: { $0 != " " }))
        let attributes = String(tag.dropFirst(name.count))
        switch name {
        case "b", "i":
            guard attributes.isEmpty else { throw Violation("<\(tag)> has attributes") }
            guard !stack.contains("code"), !stack.contains("pre") else { throw Violation("<\(name)> inside code") }
        case "code":
            if !attributes.isEmpty {
                guard stack.last == "pre", try attribute(attributes, "class").hasPrefix("language-") else {
                    throw Violation("<\(tag)> not directly in a pre")
                }
            }
            guard !stack.contains("code"), !stack.contains("a") else { throw Violation("<code> inside code or a link") }
        case "pre":
            guard attributes.isEmpty else { throw Violation("<\(tag)> has attributes") }
            guard !stack.contains("pre"), !stack.contains("code"), !stack.contains("a") else { throw Violation("<pre> inside an entity") }
        case "a":
            let href = try attribute(attributes, "href")
            guard href.hasPrefix("http://") || href.hasPrefix("https://") else { throw Violation("bad href \(href)") }
            guard !stack.contains("code"), !stack.contains("pre"), !stack.contains("a") else { throw Violation("<a> inside an entity") }
        case "blockquote":
            guard attributes.isEmpty else { throw Violation("<\(tag)> has attributes") }
            guard !stack.contains("blockquote") else { throw Violation("nested blockquote") }
        default:
            throw Violation("unsupported tag <\(tag)>")
        }
        stack.append(name)
    }

    /// The value of ` name="value"`, which must be the tag's only attribute, with its entities
    /// read. Read by code point, as an HTML parser reads it: a quote followed by a combining
    /// mark is one character to Swift, and still ends the value for a browser.
    private static func attribute(_ attributes: String, _ name: String) throws -> String {
        let prefix = Array((" " + name + "=\"").unicodeScalars)
        let scalars = Array(attributes.unicodeScalars)
        guard scalars.starts(with: prefix), scalars.last == "\"", scalars.count > prefix.count + 1 else {
            throw Violation("attributes \(attributes) are not \(name)=\"…\"")
        }
        let raw = scalars[prefix.count..<(scalars.count - 1)]
        guard !raw.contains("\""), !raw.contains("<") else { throw Violation("unescaped quote or < in \(attributes)") }
        var value = String.UnicodeScalarView()
        var index = raw.startIndex
        while index < raw.endIndex {
            guard raw[index] == "&" else {
                value.append(raw[index])
                index += 1
                continue
            }
            guard let semicolon = raw[index...].firstIndex(of: ";") else { throw Violation("bare & in \(attributes)") }
            value.append(try entity(String(String.UnicodeScalarView(raw[(index + 1)..<semicolon]))))
            index = semicolon + 1
        }
        return String(value)
    }

    private static func entity(_ name: String) throws -> Unicode.Scalar {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        default:
            var digits = Substring(name)
            guard digits.hasPrefix("#") else { throw Violation("unknown entity &\(name);") }
            digits = digits.dropFirst()
            let hex = digits.hasPrefix("x") || digits.hasPrefix("X")
            if hex { digits = digits.dropFirst() }
            guard let value = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value) else {
                throw Violation("bad numeric entity &\(name);")
            }
            return scalar
        }
    }
}
