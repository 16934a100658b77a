import PiRelaySDK
import Testing

@testable import WebPlugin

/// A session's page: each delivery once, live views newest first and never after the run's
/// final, a question closed in place, and at most `keep` posts.
@Suite struct BoardPageTests {
    @Test func aRepeatedDeliveryIsShownOnce() {
        var page = BoardPage()
        let r1 = page.add(["id": "d1", "kind": "notice", "html": "a"], id: "d1")
        #expect(r1)
        let r2 = page.add(["id": "d1", "kind": "notice", "html": "a"], id: "d1")
        #expect(!r2)
        #expect(page.items.count == 1)
    }

    @Test func liveViewsGoForwardAndStopAtTheFinal() {
        var page = BoardPage()
        let r3 = page.live(run: "r1", rev: 2, html: "two")
        #expect(r3)
        let r4 = page.live(run: "r1", rev: 1, html: "one")
        #expect(!r4)
        let r5 = page.live(run: "r1", rev: 2, html: "two again")
        #expect(!r5)
        #expect(page.backlog(session: "s").last?["html"] == "two")
        let r6 = page.add(["id": "f", "kind": "final", "runId": "r1", "html": "done"], id: "f")
        #expect(r6)
        #expect(page.live["r1"] == nil)
        let r7 = page.live(run: "r1", rev: 3, html: "late")
        #expect(!r7)
        #expect(page.backlog(session: "s").map { $0["type"] } == ["item"])
    }

    @Test func aClosedQuestionKeepsItsTextAndTheOldestPostsGo() {
        var page = BoardPage()
        let r8 = page.add(["id": "q", "kind": "question", "question": ["id": "Q1", "title": "Allow?"]], id: "q")
        #expect(r8)
        let r9 = page.close(question: "Q1", text: "alice (discord) answered: yes")
        #expect(r9)
        let r10 = page.close(question: "Q2", text: "nothing")
        #expect(!r10)
        #expect(page.items[0]["closed"] == "alice (discord) answered: yes")
        for index in 0..<BoardPage.keep { _ = page.add(["id": .string("n\(index)"), "kind": "notice"], id: "n\(index)") }
        #expect(page.items.count == BoardPage.keep && page.items.first?["id"] == "n0")
        // The id of a post that left the page may come again (a replay) and is shown again.
        let r11 = page.add(["id": "q", "kind": "notice"], id: "q")
        #expect(r11)
    }
}
