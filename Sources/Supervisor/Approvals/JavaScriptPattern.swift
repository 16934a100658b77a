/// A rule's `command` as the engine that runs it reads it: pi's extension tests it with
/// JavaScript's `new RegExp(command)` (no flags), while the loader can only compile it with
/// Swift's `Regex`. Where the two read a pattern differently the gate must not start quietly
/// off: `git\s+push\z` compiles in both, and JavaScript takes `\z` for the letter z, so the rule
/// never matches and `git push` runs unasked.
enum JavaScriptPattern {
    /// What JavaScript would read otherwise, as a sentence; nil when the pattern means the same.
    static func problem(_ pattern: String) -> String? {
        let characters = Array(pattern)
        var index = 0
        var inClass = false
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "\\", let next {
                if next.isASCII, next.isLetter, let why = escapeProblem(next, after: characters[(index + 2)...], inClass: inClass) { return why }
                index += 2
                continue
            }
            if inClass {
                if character == "[", next == ":" { return "[:…:] (a POSIX class) is not JavaScript: write \\s, \\d, \\w or a range such as [a-z]" }
                if character == "]" { inClass = false }
            } else if character == "[" {
                inClass = true
                // `[]` is an empty class to JavaScript, `[^]` any character: a `]` first is no literal.
                let first = next == "^" ? index + 2 : index + 1
                if first < characters.count, characters[first] == "]" { return "[] is an empty class to JavaScript: escape a ] in a class as \\]" }
                if next == "^" { index += 1 }
            } else if character == "(", next == "?", index + 2 < characters.count, !":=!<".contains(characters[index + 2]) {
                return "(?\(characters[index + 2])… is not a group JavaScript knows (it has (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?<name>…))"
            } else if character == "{", next == "," {
                return "{,n} is plain text to JavaScript: write {0,n}"
            } else if next == "+", Self.endsQuantifier(characters, at: index) {
                return "\(character)+ (a possessive quantifier) is not JavaScript: write \(character) alone"
            }
            index += 1
        }
        return nil
    }

    /// Whether `characters[index]` ends a quantifier: `*`, `+`, `?`, or the `}` of `{n}`,
    /// `{n,}`, `{n,m}` (another `}` is a plain character to both engines).
    private static func endsQuantifier(_ characters: [Character], at index: Int) -> Bool {
        let character = characters[index]
        if "*+?".contains(character) { return index == 0 || characters[index - 1] != "\\" }
        guard character == "}" else { return false }
        var scan = index - 1
        while scan >= 0, characters[scan].isASCII, characters[scan].isNumber || characters[scan] == "," { scan -= 1 }
        return scan >= 0 && scan < index - 1 && characters[scan] == "{" && characters[scan + 1].isNumber
    }

    /// JavaScript's escapes of a letter (without the `u` flag): any other letter is read as
    /// itself, silently. `\v` is in both, and means the vertical tab alone to JavaScript.
    private static func escapeProblem(_ letter: Character, after rest: ArraySlice<Character>, inClass: Bool) -> String? {
        switch letter {
        case "d", "D", "w", "W", "s", "S", "b", "B", "t", "n", "f", "r", "k": return nil
        case "c" where rest.first.map { $0.isASCII && ($0.isLetter || (inClass && ($0.isNumber || $0 == "_"))) } ?? false: return nil
        case "x" where rest.prefix(2).count == 2 && rest.prefix(2).allSatisfy(\.isHexDigit): return nil
        case "u" where rest.prefix(4).count == 4 && rest.prefix(4).allSatisfy(\.isHexDigit): return nil
        case "v": return "\\v is the vertical tab alone to JavaScript, which runs the gate in pi's extension (write [\\n\\v\\f\\r] for line breaks)"
        default:
            let instead: [Character: String] = [
                "A": "^", "z": "$", "Z": "$", "h": "[ \\t]", "Q": "each character escaped", "p": "a class such as [a-z]",
            ]
            return "\\\(letter) is the letter \(letter) to JavaScript, which runs the gate in pi's extension"
                + (instead[letter].map { " (write \($0) instead)" } ?? "")
        }
    }
}
