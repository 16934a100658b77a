import Testing

@testable import PiRelaySDK

@Suite struct JSONValueTests {
    @Test func decodesEveryEscape() throws {
        let value = try JSONValue.parse(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u4e2d \ud83d\ude00""#)
        #expect(value == .string("q\" b\\ s/ \u{8}\u{C}\n\r\t Aé中 😀"))
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try JSONValue.parse(#""\ud800x""#) == .string("\u{FFFD}x"))
        #expect(try JSONValue.parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(try JSONValue.parse(#""\ud800\u0041""#) == .string("\u{FFFD}A"))
        // A high surrogate followed by a complete pair: only the first is lone.
        #expect(try JSONValue.parse(#""\ud800\ud83d\ude00""#) == .string("\u{FFFD}😀"))
        #expect(try JSONValue.parse(#""\ud83d\ud83d\ude00\udc00""#) == .string("\u{FFFD}😀\u{FFFD}"))
    }

    @Test func keepsRawUnicodeIncludingLineSeparators() throws {
        let text = "é 中文 👩‍💻 \u{2028} \u{2029}"
        let serialized = JSONValue.string(text).serialized()
        #expect(serialized == "\"" + text + "\"")
        #expect(try JSONValue.parse(serialized) == .string(text))
    }

    @Test func escapesControlCharactersWhenSerializing() throws {
        let text = "a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{7F}"
        let serialized = JSONValue.string(text).serialized()
        #expect(serialized == #""a\"b\\c\nd\re\tf\u0000g\u001fh"# + "\u{7F}\"")
        #expect(try JSONValue.parse(serialized) == .string(text))
    }

    @Test func numbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("1.5", 1.5), ("-2.25e-3", -0.00225), ("1E3", 1000), ("1e+2", 100),
            ("12345678901234", 12_345_678_901_234), ("0.1", 0.1), ("1e300", 1e300),
        ]
        for (text, expected) in cases {
            #expect(try JSONValue.parse(text) == .number(expected), "\(text)")
        }
        #expect(JSONValue.number(3).serialized() == "3")
        #expect(JSONValue.number(-0.0).serialized() == "0")
        #expect(JSONValue.number(0.1).serialized() == "0.1")
        #expect(JSONValue.number(.infinity).serialized() == "null")
        for value in [0.1, -2.25e-3, 1e300, Double.leastNonzeroMagnitude, 123456.789, 9.5e15, Double.pi] {
            #expect(try JSONValue.parse(JSONValue.number(value).serialized()) == .number(value), "\(value)")
        }
        for bad in ["01", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "0x10", "NaN", "Infinity"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONValue.parse(bad) }
        }
    }

    @Test func roundTripsNestedValues() throws {
        let value: JSONValue = [
            "type": "message_update",
            "list": [1, 2.5, true, false, nil, "s", [], [:]],
            "nested": ["a": ["b": ["c": "\u{2028}\"{}[]\\"]]],
            "empty": "",
        ]
        let text = value.serialized()
        #expect(
            text == #"{"empty":"","list":[1,2.5,true,false,null,"s",[],{}],"nested":{"a":{"b":{"c":"#
                + "\"\u{2028}\\\"{}[]\\\\\"}}},\"type\":\"message_update\"}")
        #expect(try JSONValue.parse(text) == value)
        #expect(try JSONValue.parse(bytes: value.serializedBytes()) == value)
    }

    @Test func acceptsWhitespaceAroundTokens() throws {
        #expect(try JSONValue.parse(" {\r\n\t\"a\" : [ 1 , 2 ] } ") == ["a": [1, 2]])
    }

    @Test func nestingIsLimited() throws {
        let ok = String(repeating: "[", count: JSONByteParser.maxDepth) + String(repeating: "]", count: JSONByteParser.maxDepth)
        #expect(try JSONValue.parse(ok).arrayValue != nil)
        let deep = String(repeating: "[", count: JSONByteParser.maxDepth + 1) + String(repeating: "]", count: JSONByteParser.maxDepth + 1)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        // Far deeper than the limit: must fail cleanly, not overflow the stack.
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(hostile) }
    }

    @Test func rejectsMalformedDocuments() {
        let bad = [
            "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "\"unterminated", "\"bad \\x\"",
            "\"short \\u12\"", "tru", "nul", "{} {}", "\"tab\there\"", "\"nl\nhere\"", "'single'",
        ]
        for text in bad {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(text) }
        }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes: [0x22, 0xFF, 0x22]) }
    }

    @Test func reportsErrorOffsets() {
        do {
            _ = try JSONValue.parse("[1, x]")
            Issue.record("expected an error")
        } catch let error as JSONParseError {
            #expect(error.offset == 4)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
