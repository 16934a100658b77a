extension String {
    /// The text made safe inside a Telegram HTML attribute value: `&`, `<`, `>` and `"`
    /// escaped (spec §7.1).
    var htmlAttributeEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for character in self { out.appendHTMLEscaped(character, quotes: true) }
        return out
    }

    /// Appends one character of text, escaped for Telegram HTML: `&`, `<` and `>` become
    /// entities (and `"` in an attribute), everything else is shown as it is. Looked at code
    /// point by code point: a `"` followed by a combining mark is one character, and an HTML
    /// parser still reads its quote.
    mutating func appendHTMLEscaped(_ character: Character, quotes: Bool = false) {
        let utf8 = character.utf8
        if utf8.count == 1 {
            if let entity = Self.htmlEntity(utf8[utf8.startIndex], quotes: quotes) { self += entity } else { append(character) }
            return
        }
        guard utf8.contains(where: { Self.htmlEntity($0, quotes: quotes) != nil }) else { return append(character) }
        for scalar in character.unicodeScalars {
            if scalar.isASCII, let entity = Self.htmlEntity(UInt8(scalar.value), quotes: quotes) {
                self += entity
            } else {
                unicodeScalars.append(scalar)
            }
        }
    }

    /// The entity an ASCII byte is written as in Telegram HTML, or nil for the byte itself.
    static func htmlEntity(_ byte: UInt8, quotes: Bool = false) -> String? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\"") where quotes: "&quot;"
        default: nil
        }
    }

    /// Characters Telegram counts against its limit in this HTML: code points after entity
    /// parsing, tags not counted, an entity as one (spec §7: "Markup tags do not count; `&lt;`
    /// counts as one").
    var telegramVisibleLength: Int {
        var count = 0
        var inTag = false, inEntity = false
        for scalar in unicodeScalars {
            if inTag {
                if scalar == ">" { inTag = false }
            } else if inEntity {
                if scalar == ";" { inEntity = false }
            } else if scalar == "<" {
                inTag = true
            } else if scalar == "&" {
                inEntity = true
                count += 1
            } else {
                count += 1
            }
        }
        return count
    }
}
