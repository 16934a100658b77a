import PiRelaySDK
import Testing

@testable import DiscordPlugin

@Suite("Reply → components")
struct ComponentLayoutTests {
    func actions(_ n: Int, perRow: Int) -> [[Reply.Action]] {
        let all = (0..<n).map { Reply.Action(id: "a:\($0)", label: "Action \($0)", style: "primary") }
        return stride(from: 0, to: n, by: perRow).map { Array(all[$0..<min($0 + perRow, n)]) }
    }

    func layout(_ rows: [[Reply.Action]]) -> [JSONValue] {
        ComponentLayout.components(rows.map { $0.map(ButtonSpec.init) }, menuPrefix: "m:")
    }

    @Test func replyJSONDecodes() throws {
        let reply = try Reply(
            json: try JSONValue.parse(
                """
                {"text":"Watching api","ephemeral":true,"actions":[[{"id":"use:ab12cd34","label":"api","style":"success"},
                 {"id":"disconnect","label":"Disconnect","style":"danger"}]],"openThread":{"name":"api","sessionId":"ab12cd34"}}
                """))
        #expect(reply.text == "Watching api")
        #expect(reply.ephemeral)
        #expect(reply.openThread == Reply.OpenThread(name: "api", sessionID: "ab12cd34"))
        let rows = layout(reply.actions)
        #expect(
            rows == [
                [
                    "type": 1,
                    "components": [
                        ["type": 2, "style": 3, "label": "api", "custom_id": "use:ab12cd34"],
                        ["type": 2, "style": 4, "label": "Disconnect", "custom_id": "disconnect"],
                    ],
                ]
            ])
    }

    @Test(arguments: [("primary", 1), ("secondary", 2), ("success", 3), ("danger", 4), ("weird", 2)])
    func styles(name: String, number: Int) {
        #expect(ButtonSpec.style(name) == number)
    }

    @Test func longRowsAreSplitIntoRowsOfFive() {
        let rows = layout(actions(12, perRow: 12))
        #expect(rows.count == 3)
        #expect(rows.map { $0["components"]?.arrayValue?.count } == [5, 5, 2])
    }

    @Test func twentyFiveButtonsFitFiveRows() {
        let rows = layout(actions(25, perRow: 5))
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0["components"]?[0]?["type"] == 2 })
    }

    @Test func moreThanTwentyFiveBecomeSelectMenus() {
        let rows = layout(actions(60, perRow: 5))
        #expect(rows.count == 3)
        let menus = rows.compactMap { $0["components"]?[0] }
        #expect(menus.allSatisfy { $0["type"] == 3 })
        #expect(menus.map { $0["options"]?.arrayValue?.count } == [25, 25, 10])
        #expect(menus[0]["custom_id"] == "m:0")
        #expect(menus[2]["options"]?[9]?["value"] == "a:59")
        // Past five menus of 25 there is no room: the layout never exceeds five rows.
        #expect(layout(actions(200, perRow: 5)).count == 5)
    }

    @Test func idsThatDoNotFitAreDroppedAndLabelsAreCut() {
        let long = String(repeating: "x", count: 101)
        let rows = layout([
            [
                Reply.Action(id: long, label: "too long an id", style: "primary"),
                Reply.Action(id: "ok", label: String(repeating: "L", count: 200), style: "primary"),
                Reply.Action(id: "ok", label: "duplicate", style: "primary"),
            ]
        ])
        let buttons = rows.first?["components"]?.arrayValue ?? []
        #expect(buttons.count == 1)
        #expect(buttons[0]["custom_id"] == "ok")
        #expect((buttons[0]["label"]?.stringValue?.count ?? 0) <= 80)
    }

    @Test func everyLayoutStaysWithinDiscordsLimits() {
        for n in [0, 1, 5, 6, 24, 25, 26, 99, 125, 300] {
            for perRow in [1, 3, 5, 9] {
                let rows = layout(actions(n, perRow: perRow))
                #expect(rows.count <= 5)
                for row in rows {
                    let items = row["components"]?.arrayValue ?? []
                    #expect(items.count <= 5)
                    #expect(items.allSatisfy { ($0["custom_id"]?.stringValue?.count ?? 0) <= 100 })
                    #expect(items.allSatisfy { ($0["label"]?.stringValue?.count ?? 0) <= 80 })
                    if items.contains(where: { $0["type"] == 3 }) { #expect(items.count == 1) }
                }
            }
        }
    }
}
