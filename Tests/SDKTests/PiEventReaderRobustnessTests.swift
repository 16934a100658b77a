import Testing

@testable import PiRelaySDK

/// Key order, omitted and mistyped fields, escapes in awkward places, and lines that must fail.
@Suite struct PiEventReaderRobustnessTests {
    let reader = PiEventReader()

    func read(_ line: String) throws -> PiEvent { try reader.read(line) }

    func failure(_ line: String) -> PiEventReadError? {
        do {
            _ = try reader.read(line)
            return nil
        } catch {
            return error
        }
    }

    @Test func typeLastAndInnerKeysReordered() throws {
        let partial = PiStreamFixture.assistantMessage(content: #"[{"type":"text","text":"x"}]"#)
        let line =
            #"{"message":"# + partial + #","assistantMessageEvent":{"partial":"# + partial
            + #","delta":"d\"1","contentIndex":4,"type":"text_delta"},"type":"message_update"}"#
        #expect(
            try read(line)
                == PiEvent(
                    type: .messageUpdate,
                    payload: .messageUpdate(PiAssistantMessageEvent(type: .textDelta, contentIndex: 4, delta: "d\"1"))))
    }

    @Test func roleAfterContent() throws {
        let assistant = #"{"type":"message_end","message":{"content":[{"text":"answer","type":"text"}],"stopReason":"stop","role":"assistant"}}"#
        #expect(try read(assistant).message == PiMessageSummary(role: "assistant", stopReason: "stop", text: "answer"))
        let user = #"{"message":{"content":[{"type":"text","text":"question"}],"role":"user"},"type":"message_start"}"#
        // Text read before the role is known is kept for a user message too (a prompt pi took).
        #expect(try read(user).message == PiMessageSummary(role: "user", text: "question"))
    }

    @Test func responseKeysInAnyOrder() throws {
        let line = #"{"data":{"cancelled":false},"success":true,"command":"new_session","type":"response","id":"req_9"}"#
        let response = try #require(try read(line).response)
        #expect(response.id == "req_9")
        #expect(response.command == "new_session")
        #expect(try response.data?.parse() == ["cancelled": false])
    }

    @Test func whitespaceBetweenTokens() throws {
        let line =
            " { \"type\" : \"message_update\" ,\t\"message\" : { \"content\" : [ { \"type\" : \"text\" } ] } ,\r\n"
            + " \"assistantMessageEvent\" : { \"type\" : \"text_delta\" , \"delta\" : \"x\" , \"contentIndex\" : 0 } } \r"
        #expect(try read(line).assistantMessageEvent == PiAssistantMessageEvent(type: .textDelta, contentIndex: 0, delta: "x"))
    }

    @Test func omittedFieldsAreNil() throws {
        #expect(try read(#"{"type":"message_update"}"#).assistantMessageEvent == PiAssistantMessageEvent())
        #expect(try read(#"{"type":"message_update","assistantMessageEvent":{}}"#).assistantMessageEvent == PiAssistantMessageEvent())
        #expect(try read(#"{"type":"message_end"}"#).message == PiMessageSummary())
        #expect(try read(#"{"type":"message_end","message":{"role":"assistant"}}"#).message == PiMessageSummary(role: "assistant"))
        #expect(try read(#"{"type":"tool_execution_end"}"#).toolExecution == PiToolExecution())
        #expect(try read(#"{"type":"tool_execution_end","result":{}}"#).toolExecution == PiToolExecution())
        #expect(try read(#"{"type":"response"}"#).response == PiResponse())
        #expect(try read(#"{"type":"auto_compaction_end"}"#).autoCompaction == PiAutoCompaction())
        #expect(try read(#"{"type":"auto_retry_end"}"#).autoRetry == PiAutoRetry())
        #expect(try read(#"{"type":"extension_error"}"#).extensionError == PiExtensionError())
        #expect(try read(#"{"type":"extension_ui_request"}"#).extensionUIRequest == PiExtensionUIRequest())
    }

    @Test func nullsAndWrongTypesAreNil() throws {
        let update = #"{"type":"message_update","assistantMessageEvent":{"type":null,"contentIndex":"0","delta":7,"content":null,"toolCall":"x"}}"#
        #expect(try read(update).assistantMessageEvent == PiAssistantMessageEvent())
        let tool =
            #"{"type":"tool_execution_end","toolCallId":null,"isError":"yes","result":{"content":"text","details":{"diff":null,"exitCode":1.5}}}"#
        #expect(try read(tool).toolExecution == PiToolExecution())
        let message =
            #"{"type":"message_end","message":{"role":"assistant","content":[7,null,{"type":"text","text":null},{"type":"text","text":"ok"}]}}"#
        #expect(try read(message).message == PiMessageSummary(role: "assistant", text: "ok"))
        #expect(try read(#"{"type":"message_end","message":[]}"#).message == PiMessageSummary())
    }

    @Test func integersInOtherSpellings() throws {
        let line = #"{"type":"auto_retry_start","attempt":2.0,"maxAttempts":3e0,"delayMs":-0,"errorMessage":"x"}"#
        #expect(try read(line).autoRetry == PiAutoRetry(attempt: 2, maxAttempts: 3, delayMs: 0, errorMessage: "x"))
        let huge = #"{"type":"auto_retry_start","attempt":99999999999999999999}"#
        #expect(try read(huge).autoRetry?.attempt == nil)
    }

    @Test func escapedKeysAndTypeValues() throws {
        #expect(try read(#"{"\u0074ype":"agent_start"}"#).type == .agentStart)
        #expect(try read(#"{"type":"agent\u005fend"}"#).type == .agentEnd)
        let update = #"{"type":"message_update","assistant\u004dessageEvent":{"typ\u0065":"text\u005fdelta","\u0064elta":"x"}}"#
        #expect(try read(update).assistantMessageEvent == PiAssistantMessageEvent(type: .textDelta, delta: "x"))
    }

    /// Skipped strings that end in backslashes, long and short, must end at the right quote.
    @Test func backslashRunsInSkippedStrings() throws {
        let texts = [
            #"\\"#, #"\\\\"#, #"\"\\"#, #"a\\\"b"#, String(repeating: #"\\"#, count: 40),
            String(repeating: "x", count: 30) + #"\\\\\"\\"#, String(repeating: #"\""#, count: 50) + "}",
        ]
        for text in texts {
            let partial = PiStreamFixture.assistantMessage(content: #"[{"type":"text","text":""# + text + #""}]"#)
            let line = PiStreamFixture.messageUpdate("text_delta", contentIndex: 0, fields: #","delta":"z""#, partial: partial)
            #expect(try read(line).assistantMessageEvent?.delta == "z", "text \(text)")
        }
    }

    @Test func deeplyNestedSkippedValues() throws {
        let depth = 200
        let nested = String(repeating: #"{"a":["#, count: depth) + "1" + String(repeating: "]}", count: depth)
        #expect(try read(#"{"type":"agent_end","messages":"# + nested + "}") == PiEvent(type: .agentEnd))
        let mismatchedDeep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth - 1) + "}"
        #expect(failure(#"{"type":"agent_end","messages":"# + mismatchedDeep + "}")?.kind == .invalidJSON)
        // Past the nesting limit the line fails cleanly instead of exhausting the stack.
        let limit = JSONCursor.maxSkipDepth
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try read(#"{"type":"agent_end","messages":"# + atLimit + "}") == PiEvent(type: .agentEnd))
        let hostile = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(failure(#"{"type":"agent_end","messages":"# + hostile + "}")?.reason == "nesting deeper than \(limit)")
    }

    @Test func garbageIsRejected() {
        let invalid = [
            "", "   ", "hello", "Migrated 3 commands/ → prompts/", "{", "}", #"{"type":"agent_start""#,
            #"{"type":"agent_start",}"#, #"{"type":"agent_start" "x":1}"#, #"{"type" "agent_start"}"#,
            #"{"type":"agent_start"} trailing"#, #"{"type":"agent_start"}{"type":"agent_start"}"#,
            #"{type:"agent_start"}"#, #"{'type':'agent_start'}"#,
            #"{"type":"message_update","message":{"a":"unterminated}}"#,
            #"{"type":"agent_end","messages":[{]}"#, #"{"type":"agent_end","messages":[abc]}"#,
            #"{"type":"agent_end","x":tru}"#, #"{"type":"agent_end","x":01}"#, #"{"type":"agent_end","x":-}"#,
            #"{"type":"agent_end","x":1.}"#, #"{"type":"agent_end","x":[1,]}"#, #"{"type":"agent_end","x":}"#,
            #"{"type":"message_update","assistantMessageEvent":{"delta":"bad \x escape"}}"#,
            #"{"type":"message_update","assistantMessageEvent":{"delta":"short \u12"}}"#,
            #"{"ty\pe":"agent_start"}"#, #"{"type":"agent_start\"#,
            #"{"type":"extension_ui_request","id":"u1","method":"select",}"#,
            #"{"type":"tool_execution_end","result":{"content":[{"type":"text","text":"\q"}]}}"#,
        ]
        for line in invalid {
            #expect(failure(line)?.kind == .invalidJSON, "\(line)")
        }
    }

    @Test func nonObjectsAndMissingTypes() {
        for line in ["[1,2]", #""agent_start""#, "42", "null", "true", " [] "] {
            #expect(failure(line)?.kind == .notAnObject, "\(line)")
        }
        for line in ["{}", #"{"kind":"agent_start"}"#, #"{"type":5}"#, #"{"type":null}"#, #"{"type":{"a":"b"}}"#] {
            #expect(failure(line)?.kind == .missingType, "\(line)")
        }
    }

    @Test func errorsReportTheOffset() {
        let error = failure(#"{"type":"agent_end","x":tru}"#)
        #expect(error?.offset == 24)
        #expect(error?.description.contains("byte 24") == true)
    }

    @Test func invalidUTF8IsRepairedInKeptStrings() throws {
        var bytes = Array(#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"a"#.utf8)
        bytes += [0xFF, 0xC3]
        bytes += Array(#"b"}}"#.utf8)
        #expect(try reader.read(bytes).assistantMessageEvent?.delta == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func readsFromEveryEntryPoint() throws {
        let line = #"{"type":"turn_start"}"#
        let bytes = Array(line.utf8)
        #expect(try reader.read(bytes) == PiEvent(type: .turnStart))
        let viaPointer = try bytes.withUnsafeBytes { try reader.read($0) }
        #expect(viaPointer == PiEvent(type: .turnStart))
    }

    @Test func typeNamesRoundTrip() {
        for type in PiEventType.known {
            #expect(PiEventType(wireName: type.wireName) == type)
        }
        for type in PiAssistantMessageEventType.known {
            #expect(PiAssistantMessageEventType(wireName: type.wireName) == type)
        }
        #expect(PiEventType(wireName: "message_update") == .messageUpdate)
        #expect(PiAssistantMessageEventType(wireName: "toolcall_end") == .toolcallEnd)
    }
}
