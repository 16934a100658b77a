@testable import PiRelaySDK

/// Builds lines shaped like pi 0.58's stdout (spec §3): `type` first, and the partial assistant
/// message repeated as `message` and `assistantMessageEvent.partial`, with pi's key order.
struct PiStreamFixture {
    /// Text fragments chosen to stress the reader: quotes, backslashes, braces inside strings,
    /// multi-byte UTF-8, emoji (surrogate pairs in JS), raw U+2028/U+2029, control characters.
    static let fragments: [String] = [
        "the ", "function ", "returns ", "é", "naïve ", "中文", "🙂", "👩‍💻 ", "say \"hi\" ", "C:\\path\\",
        "{braces} ", "[brackets] ", "\u{2028}", "\u{2029}", "tab\there ", "x = {\"a\": [1, 2]}", "\n",
        "\n```swift\nlet s = \"q\\\\\"\n```\n", "\u{1}", "back\\", "\\\"", "}}]]\"", "😀😀",
    ]

    /// A JSON string literal, escaped as JSON.stringify does (raw U+2028 stays raw).
    static func quoted(_ s: String) -> String {
        String(decoding: escapedBytes(s, quotes: true), as: UTF8.self)
    }

    static func escapedBytes(_ s: String, quotes: Bool) -> [UInt8] {
        var out: [UInt8] = []
        JSONValue.writeString(s, to: &out)
        return quotes ? out : Array(out.dropFirst().dropLast())
    }

    static let usage =
        #"{"input":4,"output":71,"cacheRead":38403,"cacheWrite":333,"totalTokens":38811,"#
        + #""cost":{"input":0.000012,"output":0.001065,"cacheRead":0.011520899999999999,"cacheWrite":0.00124875,"#
        + #""total":0.013846649999999999}}"#

    /// An assistant message as pi writes it; `content` is the already-serialized content array.
    static func assistantMessage(content: String, stopReason: String = "stop", errorMessage: String? = nil) -> String {
        var s =
            #"{"role":"assistant","content":"# + content
            + #","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":"# + usage
            + #","stopReason":"# + quoted(stopReason) + #","timestamp":1763683114283"#
        if let errorMessage { s += #","errorMessage":"# + quoted(errorMessage) }
        return s + "}"
    }

    /// `{"type":"message_update","message":M,"assistantMessageEvent":{"type":…,…,"partial":M}}`.
    static func messageUpdate(_ kind: String, contentIndex: Int, fields: String = "", partial: String) -> String {
        #"{"type":"message_update","message":"# + partial + #","assistantMessageEvent":{"type":"# + quoted(kind)
            + #","contentIndex":"# + String(contentIndex) + fields + #","partial":"# + partial + "}}"
    }

    /// A streamed answer: message_start, text_start, one text_delta per fragment, text_end and
    /// message_end. The escaped text is grown incrementally so long streams stay cheap to build.
    static func answer(deltas: [String], emit: (String) throws -> Void) rethrows {
        try emit(#"{"type":"message_start","message":"# + assistantMessage(content: "[]") + "}")
        var escaped: [UInt8] = []
        func partial() -> String {
            assistantMessage(content: #"[{"type":"text","text":""# + String(decoding: escaped, as: UTF8.self) + #""}]"#)
        }
        try emit(messageUpdate("text_start", contentIndex: 0, partial: partial()))
        for delta in deltas {
            escaped += escapedBytes(delta, quotes: false)
            try emit(messageUpdate("text_delta", contentIndex: 0, fields: #","delta":"# + quoted(delta), partial: partial()))
        }
        let text = String(decoding: escaped, as: UTF8.self)
        try emit(messageUpdate("text_end", contentIndex: 0, fields: #","content":""# + text + #"""#, partial: partial()))
        try emit(#"{"type":"message_end","message":"# + partial() + "}")
    }

    static func randomDeltas(count: Int, seed: UInt64) -> [String] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 1...4, using: &rng)).map { _ in fragments.randomElement(using: &rng)! }.joined()
        }
    }
}
