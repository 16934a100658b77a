import Foundation
import Testing

@testable import Supervisor

/// Issue 17 point 3: the session commands as typed in a chat, and the markers sessions take.
@Suite struct ChatSessionCommandTests {
    @Test func aliasAndToAreParsed() throws {
        #expect(ChatCommand.parse("/alias phone") == .alias("phone"))
        #expect(ChatCommand.parse("/alias clear") == .alias(nil))
        #expect(ChatCommand.parse("/alias") == nil)
        #expect(ChatCommand.parse("/to 2 run the tests") == .to(session: "2", text: "run the tests"))
        #expect(ChatCommand.parse("/to \"docs team\" run tests") == .to(session: "docs team", text: "run tests"))
        #expect(ChatCommand.parse("/to \"docs team\"") == nil, "a label and no text")
        #expect(try ChatCommand.from(name: "alias", args: ["name": "Clear"]) == .alias(nil))
        #expect(ChatCommand.parse("/use 2") == .use("2") && ChatCommand.parse("/forget 3") == .forget("3"))
    }

    @Test func eachSessionTakesAFreeMarker() {
        #expect(SessionMarker.next(taken: []) == "🔵")
        #expect(SessionMarker.next(taken: ["🔵", "🟠"]) == "🟢", "the first one free, not the next in line")
        let all = SessionMarker.palette + ["🔵"]
        #expect(SessionMarker.next(taken: all) != "🔵", "once all are taken, the least used")
    }

    @Test func lastActivityReadsShort() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ChatDesk.ago(now, now: now) == "just now")
        #expect(ChatDesk.ago(now.addingTimeInterval(-42), now: now) == "42s ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-300), now: now) == "5m ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-3 * 3600), now: now) == "3h ago")
        #expect(ChatDesk.ago(now.addingTimeInterval(-2 * 86_400), now: now) == "2d ago")
    }
}
