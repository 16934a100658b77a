/// What a plain chat message is while a guided choice is open (PiRelay's rules): an answer, a
/// new prompt, or too unclear to tell (asked back).
package enum GuidedReply: Equatable {
    /// Send this to pi as the answer.
    case answer(String)
    /// Send the message to pi as it is, as any prompt.
    case prompt
    /// Ask the user: prompt, answer or cancel.
    case ambiguous

    /// Longest reply that may be an answer; longer text is a prompt.
    package static let shortLength = 40
    package static let shortWords = 5
    /// Words that make a reply an explicit answer: `option 2`, `choose B`, `answer 2`.
    package static let answerWords: Set<String> = ["option", "choose", "answer", "pick", "select", "number", "#"]

    /// The words a guided flow takes on their own (PiRelay's): `answer` starts stepping through the
    /// options, `prompt` sends a reply asked back as a prompt, `cancel` leaves the flow.
    package enum Word: String {
        case answer, prompt, cancel
    }

    /// The message as one of those words, alone (`Cancel`, `cancel.` too); not when an option
    /// of `choice` is called so (then it answers, as an option's text does).
    package static func word(_ message: String, for choice: GuidedChoice? = nil) -> Word? {
        let bare = strip(message.trimmingInlineSpace(), ".!").lowercased()
        if let choice, choice.options.contains(where: { $0.text.lowercased() == bare || $0.label.lowercased() == bare }) { return nil }
        return Word(rawValue: bare)
    }

    /// What pi is sent when the message answers the choice whatever it says (after `answer` or
    /// **Custom answer**): an option it names, else its own words.
    package static func answer(_ message: String, for choice: GuidedChoice) -> String {
        if case .answer(let answer) = classify(message, for: choice) { return answer }
        return GuidedChoice.answer(message.trimmed())
    }

    package static func classify(_ message: String, for choice: GuidedChoice) -> GuidedReply {
        let text = message.trimmingInlineSpace()
        let words = text.split(whereSeparator: \.isWhitespace).map { String($0).lowercased() }
        // Long text, several lines, a command or code is a prompt like any other.
        guard !text.isEmpty, !text.contains("\n"), !text.hasPrefix("/"), !text.contains("`"),
            text.count <= shortLength, words.count <= shortWords
        else { return .prompt }
        if choice.options.isEmpty { return .answer(GuidedChoice.answer(text)) }
        let bare = strip(text, ".)!").lowercased()
        // `2`, `2.`, `B)`: a label alone.
        if let option = choice.options.first(where: { $0.label.lowercased() == bare }) { return .answer(GuidedChoice.answer(option)) }
        // `option 2`, `choose B`, `answer 2`.
        if words.count == 2, answerWords.contains(words[0]) {
            let label = strip(words[1], ".)!")
            if let option = choice.option(labelled: label) { return .answer(GuidedChoice.answer(option)) }
            return .ambiguous
        }
        // An option's own text.
        if let option = choice.options.first(where: { $0.text.lowercased() == bare }) { return .answer(GuidedChoice.answer(option)) }
        // A short reply that names a number or a word of an option may mean one: asked back.
        if words.contains(where: { word in word.contains(where: \.isNumber) }) { return .ambiguous }
        let optionWords = Set(
            choice.options.flatMap { $0.text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init) }.filter { $0.count >= 3 })
        if words.contains(where: { optionWords.contains(strip($0, ".,!?")) }) { return .ambiguous }
        if words.count == 1, bare.count == 1 { return .ambiguous }
        return .prompt
    }

    /// The text without `marks` at either end.
    private static func strip(_ text: String, _ marks: String) -> String {
        let set = Set(marks)
        return String(text.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
