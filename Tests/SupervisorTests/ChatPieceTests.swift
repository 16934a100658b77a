import Foundation
import PiRelaySDK
import Testing

@testable import Supervisor

@Suite struct ChatPieceTests {
    @Test func plainTextCommands() throws {
        #expect(ChatCommand.parse("/stop") == .stop)
        #expect(ChatCommand.parse("  /to api fix the tests ") == .to(session: "api", text: "fix the tests"))
        #expect(ChatCommand.parse("/new /tmp/x demo") == .new(cwd: "/tmp/x", name: "demo"))
        #expect(ChatCommand.parse("/use") == .sessions)
        #expect(ChatCommand.parse("/skill:review this") == nil)
        #expect(ChatCommand.parse("/thinking high") == .thinking("high") && ChatCommand.parse("/thinking") == .thinking(nil))
        #expect(ChatCommand.parse("/rename api v2") == .rename("api v2") && ChatCommand.parse("/rename") == nil)
        #expect(ChatCommand.parse("/reset") == .reset && ChatCommand.parse("/newchat") == .reset)
        #expect(try ChatCommand.from(name: "thinking", args: ["level": "low"]) == .thinking("low"))
        #expect(throws: RemoteError.self) { try ChatCommand.from(name: "rename", args: [:]) }
        #expect(ChatCommand.parse("hello /stop") == nil)
        #expect(ChatCommand.parse("/steer") == nil)
    }

    @Test func emptyAllowlistRefusesEveryone() {
        let a = Allowlist(section: ["allowedUsers": []], messenger: "discord", environment: [:])
        #expect(!a.allows("1"))
        #expect(!a.allows(""))
    }

    @Test func aNumberThatIsNoWholeIDLetsNobodyInAndDoesNotTrap() {
        let a = Allowlist(section: ["allowedUsers": [1e300, 1.5, -0.0, 42]], messenger: "discord", environment: [:])
        #expect(a.users == ["42", "0"])
    }

    @Test func allowlistReadsConfigAndEnvironment() {
        let a = Allowlist(
            section: ["allowedUsers": ["111", 222]], messenger: "discord",
            environment: ["DISCORD_ALLOWED_USERS": "333, 444"])
        for u in ["111", "222", "333", "444"] { #expect(a.allows(u)) }
        #expect(!a.allows("555"))
    }

    @Test func questionAnswersHaveThePiShape() throws {
        let base = PendingQuestion(
            id: "q1", sessionID: "s", method: "confirm", title: "Apply?", message: nil, options: [],
            placeholder: nil, prefill: nil, askedAt: Date(), expiresAt: nil)
        #expect(try Self.wire(base, "yes")["confirmed"] == true)
        #expect(try Self.wire(base, "No")["confirmed"] == false)
        #expect(throws: (any Error).self) { try Self.wire(base, "maybe") }
        var select = base
        select.method = "select"
        select.options = ["Allow", "Deny"]
        #expect(try Self.wire(select, "2")["value"] == "Deny")
        #expect(try Self.wire(select, "allow")["value"] == "Allow")
        #expect(throws: (any Error).self) { try Self.wire(select, "3") }
        // A button sends the option's text; an option that is a number is that option, not
        // the one at that position.
        select.options = ["2", "1", "10"]
        #expect(try Self.wire(select, "1")["value"] == "1")
        #expect(try Self.wire(select, "2")["value"] == "2")
        #expect(try Self.wire(select, "3")["value"] == "10", "no option says 3: the third")
        var input = base
        input.method = "input"
        #expect(try Self.wire(input, "anything")["value"] == "anything")
        #expect(PiCommand.extensionUIResponse(id: base.id, .cancelled).json == ["type": "extension_ui_response", "id": "q1", "cancelled": true])
        #expect(try Self.wire(base, "y") == ["type": "extension_ui_response", "id": "q1", "confirmed": true])
    }

    /// The line pi gets for a typed answer.
    static func wire(_ question: PendingQuestion, _ text: String) throws -> JSONValue {
        PiCommand.extensionUIResponse(id: question.id, try question.answer(for: text)).json
    }

    @Test func historyIsBoundedByCountAndBytes() {
        var h = EventHistory(maxEntries: 100, maxBytes: 10_000)
        for i in 0..<10_000 { h.append(type: "text_delta", preview: ["delta": .string(String(repeating: "x", count: i % 50))]) }
        #expect(h.count <= 100)
        #expect(h.totalBytes <= 10_000)
        #expect(h.query(types: ["text_delta"], since: nil, limit: 5).count == 5)
        #expect(h.query(types: ["nope"], since: nil, limit: 5).isEmpty)
    }

    @Test func plainSplitFitsTheLimit() {
        let text = (0..<500).map { "line \($0) " + String(repeating: "é", count: $0 % 90) }.joined(separator: "\n")
        let chunks = PlainSplit.chunks(text, limit: 200)
        #expect(chunks.allSatisfy { $0.utf16.count <= 200 })
        #expect(chunks.joined(separator: "\n").replacingOccurrences(of: "\n", with: "") == text.replacingOccurrences(of: "\n", with: ""))
        // A limit of nothing (a bad hello) still ends: one unit a chunk.
        for limit in [0, -1] { #expect(PlainSplit.chunks("ab\n\nc", limit: limit) == ["a", "b", "c"], "\(limit)") }
    }

    /// Without the formatter, text is cut and then escaped for the messenger: the cut must hold
    /// once escaped, or Slack refuses the edit (`msg_too_long`) and the live view freezes.
    @Test func plainSplitFitsTheLimitOnceEscaped() {
        let code = String(repeating: "if (a < b && c > d) { x = \"<tag>\"; }\n", count: 300)
        for dialect in [Dialect.slackMrkdwn, .telegramHTML, .html, .markdown] {
            let chunks = PlainSplit.escapedChunks(code, limit: 3000, escape: dialect.escape)
            #expect(chunks.allSatisfy { $0.utf16.count <= 3000 }, "\(dialect): \(chunks.map(\.utf16.count))")
            #expect(chunks.count < 10, "cut in proportion, not to crumbs: \(chunks.count)")
            let tail = PlainSplit.escapedTail(code, limit: 3000, escape: dialect.escape)
            #expect(tail.utf16.count <= 3000 && tail == chunks.last, "\(dialect)")
        }
        #expect(PlainSplit.escapedChunks("<<", limit: 1, escape: Dialect.telegramHTML.escape) == ["&lt;", "&lt;"], "a character alone is kept whole")
    }
}
