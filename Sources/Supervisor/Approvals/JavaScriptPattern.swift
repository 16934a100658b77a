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
            if character == "\\", index + 1 < characters.count {
                let next = characters[index + 1]
                if next.isASCII, next.isLetter, let why = escapeProblem(next, after: characters[(index + 2)...]) { return why }
                index += 2
                continue
            }
            if inClass {
                if character == "]" { inClass = false }
            } else if character == "[" {
                inClass = true
            } else if character == "(", index + 2 < characters.count, characters[index + 1] == "?",
                !":=!<".contains(characters[index + 2])
            {
                return "(?\(characters[index + 2])… is not a group JavaScript knows (it has (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?<name>…))"
            } else if "+*?}".contains(character), index + 1 < characters.count, characters[index + 1] == "+" {
                return "\(character)+ (a possessive quantifier) is not JavaScript: write \(character) alone"
            }
            index += 1
        }
        return nil
    }

    /// JavaScript's escapes of a letter (without the `u` flag): any other letter is read as
    /// itself, silently.
    private static func escapeProblem(_ letter: Character, after rest: ArraySlice<Character>) -> String? {
        switch letter {
        case "d", "D", "w", "W", "s", "S", "b", "B", "t", "n", "v", "f", "r", "k": return nil
        case "c" where rest.first.map { $0.isASCII && $0.isLetter } ?? false: return nil
        case "x" where rest.prefix(2).count == 2 && rest.prefix(2).allSatisfy(\.isHexDigit): return nil
        case "u" where rest.prefix(4).count == 4 && rest.prefix(4).allSatisfy(\.isHexDigit): return nil
        default:
            let instead: [Character: String] = [
                "A": "^", "z": "$", "Z": "$", "h": "[ \\t]", "Q": "each character escaped", "p": "a class such as [a-z]",
            ]
            return "\\\(letter) is the letter \(letter) to JavaScript, which runs the gate in pi's extension"
                + (instead[letter].map { " (write \($0) instead)" } ?? "")
        }
    }
}
