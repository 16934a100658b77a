/// The decision a final answer ends with (issue 17 point 7, PiRelay's guided answers): numbered
/// or lettered options, maybe followed by a question, or a question alone. Found in the text, no
/// model call.
package struct GuidedChoice: Sendable, Equatable {
    package struct Option: Sendable, Equatable {
        /// As the answer wrote it: `1`, `B`.
        package var label: String
        package var text: String
    }

    /// The question asked, when the answer asks one.
    package var question: String?
    /// The options, in order; empty for a question alone.
    package var options: [Option]

    /// Most options a decision block has; a longer list is an enumeration, not a choice.
    package static let maxOptions = 10

    /// The choice a final answer ends with, or nil when it ends with neither options nor a
    /// question.
    package static func parse(_ text: String) -> GuidedChoice? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingInlineSpace() }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard !lines.isEmpty else { return nil }
        // A question after the options belongs to them.
        var question: String?
        if let last = lines.last, last.hasSuffix("?"), option(last) == nil {
            question = Self.plain(last)
            lines.removeLast()
            while let blank = lines.last, blank.isEmpty { lines.removeLast() }
        }
        var options: [Option] = []
        while let last = lines.last, let found = option(last) {
            options.insert(found, at: 0)
            lines.removeLast()
        }
        if options.count >= 2, options.count <= maxOptions, Self.inSequence(options) {
            if question == nil, let before = lines.last(where: { !$0.isEmpty }), before.hasSuffix("?") || before.hasSuffix(":") {
                question = Self.plain(before)
            }
            return GuidedChoice(question: question, options: options)
        }
        guard let question else { return nil }
        return GuidedChoice(question: question, options: [])
    }

    /// `1. text`, `2) text`, `B. text`, `**3.** text`, `- 1. text`.
    package static func option(_ line: String) -> Option? {
        var rest = Substring(line)
        if rest.hasPrefix("- ") || rest.hasPrefix("* ") { rest = rest.dropFirst(2) }
        rest = rest.drop { $0 == "*" }
        let label = rest.prefix { $0.isNumber }.isEmpty ? rest.prefix(1).filter(\.isLetter) : rest.prefix { $0.isNumber }
        guard !label.isEmpty, label.count <= 2 else { return nil }
        rest = rest.dropFirst(label.count)
        guard let mark = rest.first, mark == "." || mark == ")" else { return nil }
        rest = rest.dropFirst().drop { $0 == "*" }
        guard rest.first == " " else { return nil }
        let text = Self.plain(String(rest))
        guard !text.isEmpty else { return nil }
        return Option(label: String(label).uppercased(), text: text)
    }

    /// 1, 2, 3… or A, B, C…
    private static func inSequence(_ options: [Option]) -> Bool {
        let numbers = options.compactMap { Int($0.label) }
        if numbers.count == options.count { return numbers == Array(1...options.count) }
        let letters = options.map(\.label)
        return letters == Array("ABCDEFGHIJ".prefix(options.count)).map(String.init)
    }

    /// Without the markdown emphasis around it.
    private static func plain(_ text: String) -> String {
        var out = text.trimmingInlineSpace()
        for mark in ["**", "__", "*", "_", "`"] where out.hasPrefix(mark) && out.hasSuffix(mark) && out.count > mark.count * 2 {
            out = String(out.dropFirst(mark.count).dropLast(mark.count))
        }
        return out.trimmingInlineSpace()
    }

    /// The option a label names: `2`, `b`; a letter also names the option at its place in a
    /// numbered list (`choose B` is the second).
    package func option(labelled label: String) -> Option? {
        let wanted = label.uppercased()
        if let exact = options.first(where: { $0.label == wanted }) { return exact }
        if wanted.count == 1, let letter = wanted.unicodeScalars.first, (65...74).contains(letter.value) {
            let index = Int(letter.value) - 65
            return index < options.count ? options[index] : nil
        }
        return nil
    }

    /// What pi is sent for an option picked.
    package static func answer(_ option: Option) -> String { "Answer: \(option.label). \(option.text)" }

    /// What pi is sent for a free answer.
    package static func answer(_ text: String) -> String { "Answer: \(text)" }
}
