import Foundation
import PiRelaySDK
import Testing

/// Guided answers' words (seed 002's): after a final that ends with a choice, a bare `answer`
/// steps through its options, a bare `cancel` leaves the flow and never reaches pi as an answer,
/// and a reply asked back takes `answer`, `prompt` or `cancel` as its buttons do. Through the
/// whole relay, in process, with the fake pi (which echoes each prompt as its final).
@Suite(.timeLimit(.minutes(3))) struct LinkedGuidedWordsTests {
    /// Until `text` was heard `count` times in all.
    func hear(_ relay: LinkedRelay, _ text: String, count: Int = 1) async throws {
        for _ in 0..<3000 {
            if await heard(relay, text) >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        _ = try await relay.waitToHear(String(repeating: "\u{1}", count: 3), timeout: .zero)
    }

    func heard(_ relay: LinkedRelay, _ text: String) async -> Int {
        await LinkedChats.shared.all(relay.messengerState).filter { $0.params.serialized().contains(text) }.count
    }

    /// A final that ends with options, and the offer under it.
    func ask(_ relay: LinkedRelay, _ question: String, _ options: [String], offers: Int) async throws {
        let text = question + "\n" + options.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        #expect(try await relay.say(text).status == .prompted)
        try await hear(relay, "Pick an answer", count: offers)
    }

    @Test func answerStepsThroughTheOptionsAndCancelLeaves() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) guided")
            try await ask(relay, "Which colour?", ["red", "green"], offers: 1)
            let card = try await relay.say("answer")
            #expect(card.status == .command, "\(card)")
            let shown = card.reply?.text ?? ""
            #expect(shown.contains("Which colour?") && shown.contains("1. red") && shown.contains("2. green"), "\(shown)")
            let labels = card.reply?.actions.flatMap { $0 }.map(\.label) ?? []
            #expect(labels.contains("2. green") && labels.contains("Cancel"), "\(labels)")
            #expect(try await relay.say("2").status == .answered)
            try await hear(relay, "Echo: Answer: 2. green")

            // `cancel` leaves: nothing reaches pi, and a short reply after it is a prompt again.
            try await ask(relay, "Which fruit?", ["apple", "pear"], offers: 2)
            let left = try await relay.say("cancel")
            #expect(left.status == .command && left.reply?.text.contains("nothing was sent") == true, "\(left)")
            #expect(try await relay.say("2").status == .prompted, "the choice was left")
            try await hear(relay, "Echo: 2")
            #expect(await heard(relay, "Answer: cancel") == 0)
            #expect(await heard(relay, "Echo: cancel") == 0)

            // In a step-through too.
            try await ask(relay, "Which tool?", ["hammer", "saw"], offers: 3)
            _ = try await relay.say("answer")
            #expect(try await relay.say("Cancel.").reply?.text.contains("nothing was sent") == true)
            _ = try await relay.say("marker one")
            try await hear(relay, "Echo: marker one")
            #expect(await heard(relay, "Answer: Cancel") == 0)
        }
    }

    @Test func aReplyAskedBackTakesTheWords() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) asked")
            try await ask(relay, "Which tool?", ["hammer", "saw"], offers: 1)
            let held = try await relay.say("the saw please")
            #expect(held.status == .held && held.reply?.text.contains("answer, prompt or cancel") == true, "\(held)")
            #expect(try await relay.say("answer").status == .answered)
            try await hear(relay, "Echo: Answer: the saw please")

            try await ask(relay, "Which tool?", ["hammer", "saw"], offers: 2)
            #expect(try await relay.say("saw it on 2 sites").status == .held)
            #expect(try await relay.say("prompt").status == .answered)
            try await hear(relay, "Echo: saw it on 2 sites")
            #expect(await heard(relay, "Answer: saw it on 2 sites") == 0)

            try await ask(relay, "Which tool?", ["hammer", "saw"], offers: 3)
            #expect(try await relay.say("a saw, 2 maybe").status == .held)
            #expect(try await relay.say("cancel").reply?.text == "Cancelled: nothing was sent.")
            _ = try await relay.say("marker two")
            try await hear(relay, "Echo: marker two")
            #expect(await heard(relay, "a saw, 2 maybe") == 0, "pi never got it (it would have echoed it)")
        }
    }

    /// A question with no options: `cancel` is no answer either.
    @Test func cancelAfterAQuestionAloneIsNoAnswer() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) question")
            #expect(try await relay.say("The tests pass. Shall I push the branch?").status == .prompted)
            try await hear(relay, "Answer with")
            #expect(try await relay.say("cancel").reply?.text.contains("nothing was sent") == true)
            _ = try await relay.say("marker three")
            try await hear(relay, "Echo: marker three")
            #expect(await heard(relay, "Answer: cancel") == 0)
        }
    }

    /// An option called "Cancel" is answered by its name, not taken as the word.
    @Test func anOptionCalledCancelIsAnAnswer() async throws {
        try await LinkedRelay.with { relay in
            _ = try await relay.say("/new \(relay.workspace) named")
            try await ask(relay, "Deploy now?", ["Deploy", "Cancel"], offers: 1)
            #expect(try await relay.say("cancel").status == .answered)
            try await hear(relay, "Echo: Answer: 2. Cancel")
        }
    }
}
