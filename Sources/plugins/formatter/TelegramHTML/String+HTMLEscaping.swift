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
    /// entities (and `"` in an attribute), everything else is shown as it is.
    mutating func appendHTMLEscaped(_ character: Character, quotes: Bool = false) {
        switch character {
        case "&": self += "&amp;"
        case "<": self += "&lt;"
        case ">": self += "&gt;"
        case "\"" where quotes: self += "&quot;"
        default: append(character)
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
