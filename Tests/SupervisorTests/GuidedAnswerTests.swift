import Testing

@testable import Supervisor

/// Issue 17 point 7: which finals end with a choice, and what a short reply to one is.
@Suite struct GuidedAnswerTests {
    static let numbered = """
        I looked at both stores.

        Which one should I use?
        1. Postgres
        2. **SQLite**
        3) Keep the JSON files
        """

    @Test func numberedOptionsAfterAQuestionAreAChoice() throws {
        let choice = try #require(GuidedChoice.parse(Self.numbered))
        #expect(choice.question == "Which one should I use?")
        #expect(choice.options.map(\.label) == ["1", "2", "3"])
        #expect(choice.options.map(\.text) == ["Postgres", "SQLite", "Keep the JSON files"])
    }

    @Test func letteredOptionsWithATrailingQuestion() throws {
        let choice = try #require(GuidedChoice.parse("Options:\nA. rebase\nB. merge\n\nWhich do you prefer?\n"))
        #expect(choice.question == "Which do you prefer?")
        #expect(choice.options.map(\.label) == ["A", "B"])
    }

    @Test func aQuestionAloneIsAChoiceWithoutOptions() throws {
        let choice = try #require(GuidedChoice.parse("The tests pass.\nShall I push the branch?"))
        #expect(choice.options.isEmpty && choice.question == "Shall I push the branch?")
    }

    @Test func answersThatEndOtherwiseAreNoChoice() {
        #expect(GuidedChoice.parse("Done: 3 files changed.") == nil)
        #expect(GuidedChoice.parse("Steps:\n1. build\n3. test") == nil, "not numbered in sequence")
        #expect(GuidedChoice.parse("1. only one option") == nil)
        #expect(GuidedChoice.parse((1...12).map { "\($0). step \($0)" }.joined(separator: "\n")) == nil, "a long list is an enumeration")
        #expect(GuidedChoice.parse("") == nil)
    }

    @Test func shortRepliesAnswer() throws {
        let choice = try #require(GuidedChoice.parse(Self.numbered))
        #expect(GuidedReply.classify("2", for: choice) == .answer("Answer: 2. SQLite"))
        #expect(GuidedReply.classify(" 2. ", for: choice) == .answer("Answer: 2. SQLite"))
        #expect(GuidedReply.classify("option 3", for: choice) == .answer("Answer: 3. Keep the JSON files"))
        #expect(GuidedReply.classify("choose B", for: choice) == .answer("Answer: 2. SQLite"), "a letter names the option at its place")
        #expect(GuidedReply.classify("Answer 1", for: choice) == .answer("Answer: 1. Postgres"))
        #expect(GuidedReply.classify("postgres", for: choice) == .answer("Answer: 1. Postgres"))
    }

    @Test func longerTextIsAPrompt() throws {
        let choice = try #require(GuidedChoice.parse(Self.numbered))
        #expect(GuidedReply.classify("actually, first explain how the JSON files are locked today", for: choice) == .prompt)
        #expect(GuidedReply.classify("2\nand then run the tests", for: choice) == .prompt)
        #expect(GuidedReply.classify("`ls -la`", for: choice) == .prompt)
        #expect(GuidedReply.classify("thanks", for: choice) == .prompt)
    }

    @Test func unclearRepliesAreAskedBack() throws {
        let choice = try #require(GuidedChoice.parse(Self.numbered))
        #expect(GuidedReply.classify("2 and 3", for: choice) == .ambiguous)
        #expect(GuidedReply.classify("5", for: choice) == .ambiguous, "no option 5")
        #expect(GuidedReply.classify("option 7", for: choice) == .ambiguous)
        #expect(GuidedReply.classify("sqlite maybe", for: choice) == .ambiguous)
        #expect(GuidedReply.classify("x", for: choice) == .ambiguous)
    }

    @Test func aQuestionAloneTakesAShortReplyAsItsAnswer() throws {
        let choice = try #require(GuidedChoice.parse("Shall I push the branch?"))
        #expect(GuidedReply.classify("yes", for: choice) == .answer("Answer: yes"))
        #expect(GuidedReply.classify("no, first rebase on main and squash the fixups please", for: choice) == .prompt)
    }
}
