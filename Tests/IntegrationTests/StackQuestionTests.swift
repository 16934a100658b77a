import Foundation
import PiRelaySDK
import Testing

/// Issue 6 point 11, questions: a dialog from the agent (the fake pi's extension) shown in
/// Discord with buttons, answered by a click, the message edited to say who answered, and pi
/// given exactly that answer once.
@Suite struct StackQuestionTests {
    /// A card asked over an hour ago may not be edited now (discord-api.md §6, code 30046): what
    /// came of it follows as a message, where the closing edit failed again at every retry and
    /// the delivery waited for a restart.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aCardOverAnHourOldIsClosedByAMessage() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "ask"])
            try await stack.dm("!scenario ui confirm")
            let card = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            _ = try await stack.fake.post("/config", ["old_message_edit_limit": ["enabled": true, "limit": 0, "window_s": 20]])
            _ = try await stack.fake.post("/clock", ["advance_s": 3700])
            let yes = try #require(StackHome.button("Yes", in: card), "\(card)")
            _ = try await stack.reply(to: try await stack.click(yes, on: try #require(card["id"]?.stringValue)))
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
            try await stack.waitForBotMessage(in: dm, containing: "Apply the migration?: alice (discord) answered: yes", timeout: 20)
        }
    }

    /// A confirm (`ask_user`) answered Yes and a select (the dangerous-bash gate) answered Block,
    /// each with a button: the message then names who answered and loses its buttons, pi gets
    /// one `extension_ui_response` with the answer and says so in its final text, and the CLI
    /// lists no open question.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func questionsAreAnsweredWithButtons() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "ask"])

            try await stack.dm("!scenario ui confirm")
            let confirm = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            #expect(try await stack.json("questions", "ask").arrayValue?.count == 1)
            let yes = try #require(StackHome.button("Yes", in: confirm), "\(confirm)")
            #expect(StackHome.button("No", in: confirm) != nil)
            let clicked = try await stack.reply(to: try await stack.click(yes, on: try #require(confirm["id"]?.stringValue)))
            #expect(clicked.ack == 6 || clicked.ephemeral, "the click is answered quietly: \(clicked)")
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: true")
            let closed = try await stack.fake.message(try #require(confirm["id"]?.stringValue))
            #expect(closed["content"]?.stringValue?.contains("alice (discord) answered: yes") == true, "\(closed)")
            #expect(closed["components"]?.arrayValue?.isEmpty == true, "no buttons left: \(closed)")
            #expect(try await stack.json("questions", "ask").arrayValue?.isEmpty == true)
            let confirmed = stack.piInput("extension_ui_response")
            #expect(confirmed.count == 1 && confirmed.first?["confirmed"] == true, "\(confirmed)")
            try await stack.waitForState("ask", "idle")

            try await stack.dm("!scenario ui select")
            let gate = try #require(try await stack.waitForBotMessage(in: dm, containing: "Dangerous command: rm -rf ./build").first)
            let block = try #require(StackHome.button("2. Block", in: gate), "\(gate)")
            #expect(StackHome.button("1. Allow", in: gate) != nil && StackHome.button("Cancel", in: gate) != nil)
            _ = try await stack.reply(to: try await stack.click(block, on: try #require(gate["id"]?.stringValue)))
            try await stack.waitForBotMessage(in: dm, containing: "select answer: \"Block\"")
            let gateClosed = try await stack.fake.message(try #require(gate["id"]?.stringValue))
            #expect(gateClosed["content"]?.stringValue?.contains("alice (discord) answered: Block") == true, "\(gateClosed)")
            let responses = stack.piInput("extension_ui_response")
            #expect(responses.count == 2 && responses.last?["value"] == "Block", "\(responses)")
            #expect(try await stack.json("questions").arrayValue?.isEmpty == true)
        }
    }

    /// While a select is open, a plain message that names no option is a prompt like any other
    /// (it reaches pi and is answered), not a dropped "answer"; a message that names an option by
    /// its number answers the question.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func plainMessagesDuringASelectArePromptsUnlessTheyPickAnOption() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "pick"])
            try await stack.dm("!scenario ui ask-select")
            try await stack.waitForBotMessage(in: dm, containing: "Pick a colour")

            try await stack.dm("which colour goes with grey?")
            try await stack.waitForPiPrompt(containing: "which colour goes with grey?")
            #expect(try await stack.json("questions", "pick").arrayValue?.count == 1, "the question is still open")
            try await stack.dm("2")
            try await stack.waitForBotMessage(in: dm, containing: "select answer: \"green\"")
            try await stack.waitForBotMessage(in: dm, containing: "Echo: which colour goes with grey?")
            let responses = stack.piInput("extension_ui_response")
            #expect(responses.count == 1 && responses.first?["value"] == "green", "\(responses)")
            #expect(try await stack.botMessages(dm).allSatisfy { $0["content"]?.stringValue?.contains("choose one of") != true })
        }
    }

    /// An input question takes the next plain reply as its answer, whatever it says; a second
    /// one is cancelled with a plain `/cancel`; an editor question takes a reply of several
    /// lines. pi gets each, no reply is a prompt, and each question's message says how it ended.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func inputQuestionsTakeAPlainReplyOrCancel() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "in"])

            try await stack.dm("!scenario ui input")
            let first = try #require(try await stack.waitForBotMessage(in: dm, containing: "Reply with your answer").first)
            try await stack.dm("blue, please")
            try await stack.waitForBotMessage(in: dm, containing: "input answer: \"blue, please\"")
            let answered = try await stack.fake.message(try #require(first["id"]?.stringValue))
            #expect(answered["content"]?.stringValue?.contains("alice (discord) answered: blue, please") == true, "\(answered)")
            try await stack.waitForState("in", "idle")

            let before = try await stack.fake.cursor
            try await stack.dm("!scenario ui input")
            let second = try #require(try await stack.waitForBotMessage(in: dm, containing: "Reply with your answer", since: before).first)
            try await stack.dm("/cancel")
            try await stack.waitForBotMessage(in: dm, containing: "input answer: null")
            let cancelled = try await stack.fake.message(try #require(second["id"]?.stringValue))
            #expect(cancelled["content"]?.stringValue?.contains("alice (discord) cancelled it") == true, "\(cancelled)")

            try await stack.waitForState("in", "idle")

            // An editor question takes a reply of several lines, kept as written.
            let third = try await stack.fake.cursor
            try await stack.dm("!scenario ui editor")
            try await stack.waitForBotMessage(in: dm, containing: "Reply with your answer", since: third)
            try await stack.dm("first line\nsecond line")
            try await stack.waitForBotMessage(in: dm, containing: "editor answer: ", since: third)

            let responses = stack.piInput("extension_ui_response")
            #expect(
                responses.count == 3 && responses.first?["value"] == "blue, please" && responses[1]["cancelled"] == true
                    && responses.last?["value"] == "first line\nsecond line", "\(responses)")
            #expect(
                stack.piPrompts(containing: "blue, please").isEmpty && stack.piPrompts(containing: "/cancel").isEmpty
                    && stack.piPrompts(containing: "second line").isEmpty)
            #expect(try await stack.json("questions").arrayValue?.isEmpty == true)
        }
    }

    /// A confirm with a 4 s timeout shows when it expires. Nobody answers: the message then says
    /// it expired and loses its buttons, pi goes on with its default (no), the CLI lists no open
    /// question, and a click from a client still showing the buttons is told it is closed.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func anUnansweredQuestionExpiresAndSaysSo() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "late"])
            try await stack.dm("!scenario ui confirm 4000")
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            #expect(question["content"]?.stringValue?.contains("⏳ expires in") == true, "the timeout is shown: \(question)")
            let yes = try #require(StackHome.button("Yes", in: question))

            try await stack.waitForBotMessage(in: dm, containing: "expired: no answer in time", timeout: 60)
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: false")
            let expired = try await stack.fake.message(message)
            #expect(expired["components"]?.arrayValue?.isEmpty == true, "no buttons left: \(expired)")
            #expect(try await stack.json("questions").arrayValue?.isEmpty == true)
            let late = try await stack.reply(to: try await stack.click(yes, on: message, stale: true))
            #expect(late.text.contains("expired") || late.text.contains("no longer open"), "\(late)")
            #expect(stack.piInput("extension_ui_response").isEmpty, "pi's own timeout answered it; nobody else did")
        }
    }

    /// A select with 24 options, more than the 20 buttons a question's rows hold: they are
    /// offered in a select menu instead (with Cancel still a button), the text asks for a reply
    /// by number or text, and picking the last option in the menu answers it.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func aSelectPastTheButtonLimitIsAMenu() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "many"])
            try await stack.dm("!scenario ui ask-select 30000 24")
            let question = try #require(try await stack.waitForBotMessage(in: dm, containing: "Pick a colour").first)
            #expect(question["content"]?.stringValue?.contains("24. colour 24") == true, "\(question["content"] ?? nil)")
            let parts = (question["components"]?.arrayValue ?? []).flatMap { $0["components"]?.arrayValue ?? [] }
            let menus = parts.filter { $0["type"] == 3 }
            let menu = try #require(menus.first, "no select menu: \(parts)")
            #expect(menus.count == 1 && (menu["options"]?.arrayValue?.count ?? 0) == 24, "\(menus)")
            #expect(parts.contains { $0["type"] == 2 && $0["label"] == "Cancel" }, "\(parts)")
            let last = try #require(menu["options"]?.arrayValue?.first { $0["label"]?.stringValue == "24. colour 24" }?["value"]?.stringValue)

            let picked = try await stack.fake.post(
                "/interactions",
                [
                    "type": 3, "message_id": question["id"] ?? .null, "custom_id": menu["custom_id"] ?? .null, "values": [.string(last)],
                    "user": ["id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name)],
                ])
            _ = try await stack.reply(to: try #require(picked["id"]?.stringValue, "\(picked)"))
            try await stack.waitForBotMessage(in: dm, containing: "select answer: \"colour 24\"")
            let responses = stack.piInput("extension_ui_response")
            #expect(responses.count == 1 && responses.first?["value"] == "colour 24", "\(responses)")
        }
    }

    /// The terminal answers first: its answer is the one pi gets; a click that comes after it
    /// (on a client still showing the buttons) is told the question is closed, and pi hears
    /// nothing more.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 5)))
    func theFirstAnswerWinsWhenTheTerminalAnswersFirst() async throws {
        try await StackHome.with { stack in
            try await stack.start()
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "race"])
            try await stack.dm("!scenario ui confirm")
            let question = try await stack.waitForCard(in: dm, containing: "Apply the migration?")
            let message = try #require(question["id"]?.stringValue)
            let yes = try #require(StackHome.button("Yes", in: question))

            let answered = try await stack.json("answer", "race", "1", "no")
            #expect(answered["answered"]?.stringValue != nil, "\(answered)")
            let late = try await stack.reply(to: try await stack.click(yes, on: message, stale: true))
            #expect(late.text.contains("no longer open") || late.text.contains("already answered"), "\(late)")
            try await stack.waitForBotMessage(in: dm, containing: "confirm answer: false")
            let closed = try await stack.fake.message(message)
            #expect(closed["content"]?.stringValue?.contains("terminal answered: no") == true, "\(closed)")
            let responses = stack.piInput("extension_ui_response")
            #expect(responses.count == 1 && responses.first?["confirmed"] == false, "\(responses)")
            #expect(try await stack.json("questions").arrayValue?.isEmpty == true)
        }
    }
}
