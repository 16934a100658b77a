import Testing

@testable import PiRelaySDK

/// The payload types: what is required, what has a default, and that optional fields stay out
/// of the JSON when absent.
@Suite struct PayloadTests {
    @Test func aMissingRequiredFieldIsInvalidParams() {
        let cases: [(String, () throws -> Void)] = [
            ("chat without user", { _ = try Chat(json: ["channel": "1"]) }),
            ("message without chat", { _ = try ChatMessageParams(json: ["text": "hi"]) }),
            ("command without name", { _ = try ChatCommandParams(json: ["chat": ["channel": "1", "user": "2"]]) }),
            ("answer without questionId", { _ = try ChatAnswerParams(json: ["chat": ["channel": "1", "user": "2"], "sessionId": "s"]) }),
            ("post without target", { _ = try ChatPostParams(json: ["kind": "notice"]) }),
            ("question without id", { _ = try QuestionPost(json: ["sessionId": "s"]) }),
            ("run that is not an object", { _ = try FormatRunParams(json: ["run": "x"]) }),
            ("limit that is not a number", { _ = try FormatRunParams(json: ["run": [:], "limit": "wide"]) }),
            ("unknown message status", { _ = try ChatMessageResult(json: ["status": "maybe"]) }),
        ]
        for (what, decode) in cases {
            do {
                try decode()
                Issue.record("\(what) was accepted")
            } catch {
                #expect((error as? RemoteError)?.code == .invalidParams, "\(what)")
            }
        }
    }

    @Test func defaultsForWhatMayBeLeftOut() throws {
        let post = try ChatPostParams(json: ["target": ["channel": "1"]])
        #expect(post.kind == .notice && post.files.isEmpty && post.chunks == nil)
        let chat = try Chat(json: ["channel": "1", "user": "2"])
        #expect(!chat.dm && !chat.mentioned && chat.thread == nil)
        #expect(
            try ChatCommandParams(json: ["chat": chat.json, "name": "images", "args": ["number": 3, "all": true]]).args == [
                "number": "3", "all": "true",
            ])
    }

    @Test func absentOptionalsStayOutOfTheJSON() {
        let post = ChatPostParams(target: Target(channel: "1"), kind: .echo, text: "hi")
        #expect(post.json == ["target": ["channel": "1"], "kind": "echo", "text": "hi"])
        #expect(Reply(text: "ok").json == ["text": "ok", "ephemeral": false])
    }

    @Test func typedMethodsCarryTheirWireNames() {
        #expect(RequestMethod.chatMessage.name.rawValue == "chat.message")
        #expect(RequestMethod.formatFinal.name.rawValue == "format.final")
        #expect(DeliverMethod.chatQuestionClosed.name.rawValue == "chat.question.closed")
        #expect(NotifyMethod.chatLive.name.rawValue == "chat.live")
        #expect(RequestMethod.chatPair.name.rawValue == "chat.pair")
        #expect(RequestMethod.messengerIdentity.name.rawValue == "messenger.identity")
        #expect(DeliverMethod.chatAllowlist.name.rawValue == "chat.allowlist")
        #expect(DeliverMethod.chatReact.name.rawValue == "chat.react")
        #expect(RequestMethod.relayStatus.name.rawValue == "relay.status")
        #expect(MethodName.allCases.count == 33)
    }

    /// Every protocol method reads back from its wire name; any other name is one `other`, so a
    /// plugin's own methods (and `plugins.call`) still reach it.
    @Test func aMethodNameTheProtocolDoesNotKnowIsOther() {
        for method in MethodName.allCases { #expect(MethodName(rawValue: method.rawValue) == method) }
        #expect(Set(MethodName.allCases.map(\.rawValue)).count == MethodName.allCases.count)
        #expect(MethodName(rawValue: "example.reverse") == .other("example.reverse"))
        #expect(MethodName.other("example.reverse").rawValue == "example.reverse")
        #expect(MethodName.other("status") == .status, "methods are equal by their wire name")
    }

    /// A messenger's dialect travels in its hello and in format requests; markdown, the
    /// default, is left out, and a name this SDK does not know reads as markdown.
    @Test func dialectsOnTheWire() throws {
        let hello = Hello(name: "telegram", version: "1", roles: ["messenger"], dialect: .telegramHTML)
        #expect(hello.json["dialect"] == "telegram-html")
        #expect(try Hello(json: hello.json).dialect == .telegramHTML)
        let run = RunView(sessionID: "s", sessionName: "n", runID: "r", done: false, items: [])
        #expect(FormatRunParams(run: run, limit: 10).json["dialect"] == nil)
        #expect(try FormatRunParams(json: FormatRunParams(run: run, limit: 10, dialect: .telegramHTML).json).dialect == .telegramHTML)
        #expect(try FormatNoticeParams(json: ["notice": "info", "text": "x", "dialect": "klingon"]).dialect == .markdown)
        #expect(Dialect.telegramHTML.escape("a<b && c>d") == "a&lt;b &amp;&amp; c&gt;d")
        #expect(Dialect.markdown.escape("a<b") == "a<b")
        // A combining mark after a quote or a bracket makes one character of the two; an HTML
        // parser still reads the quote or the bracket.
        #expect(Array(Dialect.html.escape("x\"\u{301} onclick=1").utf8) == Array("x&quot;\u{301} onclick=1".utf8))
        #expect(Array(Dialect.telegramHTML.escape("<\u{301}b>").utf8) == Array("&lt;\u{301}b&gt;".utf8))
    }
}
