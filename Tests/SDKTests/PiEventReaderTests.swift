import Testing

@testable import PiRelaySDK

/// One test per line type of spec §2–§4, using the shapes pi writes.
@Suite struct PiEventReaderTests {
    let reader = PiEventReader()

    func read(_ line: String) throws -> PiEvent { try reader.read(line) }

    // MARK: responses

    @Test func successfulResponseKeepsIdAndRawData() throws {
        let event = try read(
            #"{"id":"req_1","type":"response","command":"get_state","success":true,"data":{"thinkingLevel":"off","isStreaming":false,"isCompacting":false,"steeringMode":"one-at-a-time","followUpMode":"one-at-a-time","sessionId":"abc","autoCompactionEnabled":true,"messageCount":0,"pendingMessageCount":0}}"#
        )
        #expect(event.type == .response)
        let response = try #require(event.response)
        #expect(response.id == "req_1")
        #expect(response.command == "get_state")
        #expect(response.success == true)
        #expect(response.error == nil)
        let data = try #require(response.data).parse()
        #expect(data["isStreaming"] == false)
        #expect(data["steeringMode"] == "one-at-a-time")
        #expect(data["messageCount"]?.intValue == 0)
    }

    @Test func idlessParseFailure() throws {
        let event = try read(#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected token"}"#)
        #expect(event.response == PiResponse(command: "parse", success: false, error: "Failed to parse command: Unexpected token"))
    }

    @Test func responseWithoutData() throws {
        let event = try read(#"{"id":"req_2","type":"response","command":"prompt","success":true}"#)
        #expect(event.response == PiResponse(id: "req_2", command: "prompt", success: true))
    }

    @Test func responseDataKeepsExactBytes() throws {
        let event = try read(#"{"type":"response","command":"cycle_model","success":true,"data":null,"id":"r"}"#)
        #expect(event.response?.data == PiRawJSON("null"))
        let text = #"{"text":"a \"quoted\" \u00e9 word","n":[1,2.5e3]}"#
        let withData = try read(#"{"type":"response","command":"get_last_assistant_text","success":true,"data":"# + text + "}")
        #expect(withData.response?.data?.text == text)
        #expect(try withData.response?.data?.parse()["text"] == "a \"quoted\" é word")
    }

    // MARK: extension UI requests

    @Test func selectDialog() throws {
        let event = try read(
            #"{"type":"extension_ui_request","id":"uuid-1","method":"select","title":"Allow dangerous command?","options":["Allow","Block"],"timeout":30000}"#
        )
        #expect(event.type == .extensionUIRequest)
        #expect(
            event.extensionUIRequest
                == PiExtensionUIRequest(
                    id: "uuid-1", method: "select", title: "Allow dangerous command?", options: ["Allow", "Block"], timeout: 30000))
    }

    @Test func confirmInputAndEditorDialogs() throws {
        let confirm = try read(
            #"{"type":"extension_ui_request","id":"u2","method":"confirm","title":"Clear session?","message":"All messages will be lost."}"#)
        #expect(
            confirm.extensionUIRequest
                == PiExtensionUIRequest(
                    id: "u2", method: "confirm", title: "Clear session?", message: "All messages will be lost."))
        let input = try read(#"{"type":"extension_ui_request","id":"u3","method":"input","title":"Name","placeholder":"type here"}"#)
        #expect(input.extensionUIRequest?.placeholder == "type here")
        #expect(input.extensionUIRequest?.timeout == nil)
        let editor = try read(#"{"type":"extension_ui_request","id":"u4","method":"editor","title":"Edit","prefill":"line 1\nline 2"}"#)
        #expect(editor.extensionUIRequest?.prefill == "line 1\nline 2")
    }

    @Test func fireAndForgetRequests() throws {
        let notify = try read(#"{"type":"extension_ui_request","id":"n","method":"notify","message":"Done","notifyType":"warning"}"#)
        #expect(notify.extensionUIRequest == PiExtensionUIRequest(id: "n", method: "notify", message: "Done", notifyType: "warning"))
        let status = try read(#"{"type":"extension_ui_request","id":"s","method":"setStatus","statusKey":"demo","statusText":"busy"}"#)
        #expect(status.extensionUIRequest?.statusKey == "demo")
        #expect(status.extensionUIRequest?.statusText == "busy")
        let cleared = try read(#"{"type":"extension_ui_request","id":"s2","method":"setStatus","statusKey":"demo"}"#)
        #expect(cleared.extensionUIRequest?.statusText == nil)
        let widget = try read(
            #"{"type":"extension_ui_request","id":"w","method":"setWidget","widgetKey":"todo","widgetLines":["- a","- b"],"widgetPlacement":"belowEditor"}"#
        )
        #expect(
            widget.extensionUIRequest
                == PiExtensionUIRequest(
                    id: "w", method: "setWidget", widgetKey: "todo", widgetLines: ["- a", "- b"], widgetPlacement: "belowEditor"))
        let title = try read(#"{"type":"extension_ui_request","id":"t","method":"setTitle","title":"pi - project"}"#)
        #expect(title.extensionUIRequest?.title == "pi - project")
        let text = try read(#"{"type":"extension_ui_request","id":"e","method":"set_editor_text","text":"hello\u2028world"}"#)
        #expect(text.extensionUIRequest?.text == "hello\u{2028}world")
    }

    // MARK: run lifecycle

    @Test func typeOnlyEventsSkipTheirPayloads() throws {
        let message = PiStreamFixture.assistantMessage(content: #"[{"type":"text","text":"done {\"x\":1}"}]"#)
        #expect(try read(#"{"type":"agent_start"}"#) == PiEvent(type: .agentStart))
        #expect(try read(#"{"type":"turn_start"}"#) == PiEvent(type: .turnStart))
        let turnEnd =
            #"{"type":"turn_end","message":"# + message
            + #","toolResults":[{"role":"toolResult","toolCallId":"toolu_1","toolName":"bash","content":[{"type":"text","text":"ok"}],"details":{},"isError":false,"timestamp":1}]}"#
        #expect(try read(turnEnd) == PiEvent(type: .turnEnd))
        let agentEnd =
            #"{"type":"agent_end","messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":1},"#
            + message + "]}"
        #expect(try read(agentEnd) == PiEvent(type: .agentEnd))
        // pi-rpc §3: a loop that throws ends with only an agent_end whose last message failed.
        let thrown =
            #"{"type":"agent_end","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},"#
            + #"{"role":"assistant","content":[],"stopReason":"error","errorMessage":"Cannot read properties of undefined"}]}"#
        #expect(
            try read(thrown).message == PiMessageSummary(role: "assistant", stopReason: "error", errorMessage: "Cannot read properties of undefined"))
    }

    @Test func unknownTypeIsKeptByName() throws {
        let event = try read(#"{"type":"session_tree_changed","tree":{"nodes":[1,2,3]}}"#)
        #expect(event == PiEvent(type: .other("session_tree_changed")))
        #expect(event.type.wireName == "session_tree_changed")
    }

    @Test func autoCompaction() throws {
        #expect(
            try read(#"{"type": "auto_compaction_start", "reason": "threshold"}"#)
                == PiEvent(type: .autoCompactionStart, payload: .autoCompaction(PiAutoCompaction(reason: "threshold"))))
        let end = try read(
            #"{"type":"auto_compaction_end","result":{"summary":"long summary","firstKeptEntryId":"e1","tokensBefore":150000,"details":{"readFiles":["a"]}},"aborted":false,"willRetry":true}"#
        )
        #expect(end.autoCompaction == PiAutoCompaction(aborted: false, willRetry: true))
        let failed = try read(#"{"type":"auto_compaction_end","aborted":false,"willRetry":false,"errorMessage":"Compaction failed: 529 overloaded"}"#)
        #expect(failed.autoCompaction?.errorMessage == "Compaction failed: 529 overloaded")
    }

    @Test func autoRetry() throws {
        let start = try read(
            #"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"529 {\"type\":\"overloaded_error\"}"}"#)
        #expect(start.autoRetry == PiAutoRetry(attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: #"529 {"type":"overloaded_error"}"#))
        let end = try read(#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"Retry cancelled"}"#)
        #expect(end.type == .autoRetryEnd)
        #expect(end.autoRetry == PiAutoRetry(attempt: 3, success: false, finalError: "Retry cancelled"))
    }

    @Test func extensionError() throws {
        let event = try read(#"{"type":"extension_error","extensionPath":"command:deploy","event":"command","error":"TypeError: x is undefined"}"#)
        #expect(event.extensionError == PiExtensionError(extensionPath: "command:deploy", event: "command", error: "TypeError: x is undefined"))
    }

    // MARK: messages

    @Test func userMessageStartKeepsItsText() throws {
        let event = try read(
            #"{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"Please fix it"},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUg==","mimeType":"image/png"}],"timestamp":1763683114283}}"#
        )
        #expect(event.type == .messageStart)
        #expect(event.message == PiMessageSummary(role: "user", text: "Please fix it"))
    }

    @Test func assistantMessageStartIsEmpty() throws {
        let event = try read(#"{"type":"message_start","message":"# + PiStreamFixture.assistantMessage(content: "[]") + "}")
        #expect(event.message == PiMessageSummary(role: "assistant", stopReason: "stop", usage: PiRawJSON(PiStreamFixture.usage)))
    }

    @Test func assistantMessageEndConcatenatesTextBlocksOnly() throws {
        let content =
            #"[{"type":"thinking","thinking":"let me think about \"it\"","thinkingSignature":"EqQBCkgIARAB"},"#
            + #"{"type":"text","text":"Part one. ","textSignature":"sig"},"#
            + #"{"type":"toolCall","id":"toolu_01","name":"bash","arguments":{"command":"grep \"x\" y"}},"#
            + #"{"text":"Part \"two\" \ud83d\ude00\u2028.","type":"text"}]"#
        let event = try read(#"{"type":"message_end","message":"# + PiStreamFixture.assistantMessage(content: content, stopReason: "toolUse") + "}")
        #expect(event.type == .messageEnd)
        #expect(
            event.message
                == PiMessageSummary(
                    role: "assistant", stopReason: "toolUse", text: "Part one. Part \"two\" 😀\u{2028}.", usage: PiRawJSON(PiStreamFixture.usage)))
    }

    @Test func erroredAssistantMessage() throws {
        let line =
            #"{"type":"message_end","message":{"role":"assistant","content":[],"api":"openai-responses","provider":"openai","model":"gpt-5.1-codex","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","timestamp":1763681581545,"errorMessage":"Request was aborted"}}"#
        let usage = #"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#
        #expect(
            try read(line).message
                == PiMessageSummary(role: "assistant", stopReason: "aborted", errorMessage: "Request was aborted", usage: PiRawJSON(usage)))
    }

    @Test func toolResultMessageKeepsRoleOnly() throws {
        let line =
            #"{"type":"message_end","message":{"role":"toolResult","toolCallId":"toolu_01XrQPnkjYXzpzFGYHBzU2vm","toolName":"bash","content":[{"type":"text","text":"Command exited with code 1"}],"details":{},"isError":true,"timestamp":1763683116857}}"#
        #expect(try read(line).message == PiMessageSummary(role: "toolResult"))
    }

    // MARK: message_update

    @Test func textDeltaSkipsBothPartials() throws {
        let partial = PiStreamFixture.assistantMessage(
            content: #"[{"type":"thinking","thinking":"}{ \"\\\" ]["},{"type":"text","text":"He said \"}{][\" ok\\"}]"#)
        let line = PiStreamFixture.messageUpdate(
            "text_delta", contentIndex: 1, fields: #","delta":"Hello \"w\" \\ \u00e9 \ud83d\ude00 \u2028raw\u2029 \/ \b\f\n\r\t\u0001""#,
            partial: partial)
        let event = try read(line)
        #expect(event.type == .messageUpdate)
        #expect(
            event.assistantMessageEvent
                == PiAssistantMessageEvent(
                    type: .textDelta, contentIndex: 1, delta: "Hello \"w\" \\ é 😀 \u{2028}raw\u{2029} / \u{8}\u{C}\n\r\t\u{1}"))
    }

    @Test func everyAssistantMessageEventVariant() throws {
        let partial = PiStreamFixture.assistantMessage(content: #"[{"type":"text","text":"Hi"}]"#)
        func update(_ kind: String, _ fields: String = "") throws -> PiAssistantMessageEvent? {
            try read(PiStreamFixture.messageUpdate(kind, contentIndex: 2, fields: fields, partial: partial)).assistantMessageEvent
        }
        #expect(try update("text_start") == PiAssistantMessageEvent(type: .textStart, contentIndex: 2))
        #expect(
            try update("text_end", #","content":"Hi there""#)
                == PiAssistantMessageEvent(type: .textEnd, contentIndex: 2, content: "Hi there"))
        #expect(try update("thinking_start") == PiAssistantMessageEvent(type: .thinkingStart, contentIndex: 2))
        #expect(
            try update("thinking_delta", #","delta":"hmm""#)
                == PiAssistantMessageEvent(type: .thinkingDelta, contentIndex: 2, delta: "hmm"))
        #expect(
            try update("thinking_end", #","content":"hmm, ok""#)
                == PiAssistantMessageEvent(type: .thinkingEnd, contentIndex: 2, content: "hmm, ok"))
        #expect(try update("toolcall_start") == PiAssistantMessageEvent(type: .toolcallStart, contentIndex: 2))
        #expect(
            try update("toolcall_delta", #","delta":"{\"comm""#)
                == PiAssistantMessageEvent(type: .toolcallDelta, contentIndex: 2, delta: #"{"comm"#))
        let end = try #require(
            try update(
                "toolcall_end", #","toolCall":{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls -la \"dir\"","timeout":30}}"#
            ))
        #expect(end.type == .toolcallEnd)
        #expect(end.toolCall?.id == "toolu_1")
        #expect(end.toolCall?.name == "bash")
        #expect(end.toolCall?.arguments?.text == #"{"command":"ls -la \"dir\"","timeout":30}"#)
        #expect(try end.toolCall?.arguments?.parse() == ["command": "ls -la \"dir\"", "timeout": 30])
        #expect(try update("done", #","reason":"stop""#)?.type == .done)
        #expect(try update("start")?.type == .start)
        #expect(try update("error", #","reason":"error","error":{"role":"assistant"}"#)?.type == .error)
        #expect(try update("text_bubble")?.type == .other("text_bubble"))
    }

    // MARK: tool execution

    @Test func toolExecutionStartKeepsArgs() throws {
        let event = try read(
            #"{"type":"tool_execution_start","toolCallId":"toolu_1","toolName":"edit","args":{"path":"a.swift","oldText":"let x = \"{\"","newText":"let x = 1"}}"#
        )
        #expect(event.type == .toolExecutionStart)
        let execution = try #require(event.toolExecution)
        #expect(execution.toolCallID == "toolu_1")
        #expect(execution.toolName == "edit")
        #expect(try execution.args?.parse()["oldText"] == "let x = \"{\"")
        #expect(execution.isError == nil)
        #expect(execution.resultText == nil)
    }

    @Test func toolExecutionUpdateReadsPartialResult() throws {
        let event = try read(
            #"{"type":"tool_execution_update","toolCallId":"toolu_1","toolName":"bash","args":{"command":"make"},"partialResult":{"content":[{"type":"text","text":"line 1\nline 2\n"}],"details":{"truncation":{"truncated":false}}}}"#
        )
        #expect(event.type == .toolExecutionUpdate)
        #expect(event.toolExecution?.resultText == "line 1\nline 2\n")
        #expect(event.toolExecution?.resultTextTruncated == false)
    }

    @Test func toolExecutionEndReadsTextDiffAndExitCode() throws {
        let line =
            #"{"type":"tool_execution_end","toolCallId":"toolu_2","toolName":"edit","result":{"content":[{"type":"text","text":"Successfully replaced text in a.swift."},{"type":"image","data":"AAAA","mimeType":"image/png"}],"details":{"diff":"-let x = 0\n+let x = 1","firstChangedLine":3,"exitCode":2}},"isError":false}"#
        let execution = try #require(try read(line).toolExecution)
        var expected = PiToolExecution(
            toolCallID: "toolu_2", toolName: "edit", isError: false, resultText: "Successfully replaced text in a.swift.",
            diff: "-let x = 0\n+let x = 1", exitCode: 2)
        // A finished tool's images are kept (they can be sent to the chat on request).
        expected.images = [PiImage(mimeType: "image/png", base64: "AAAA")]
        #expect(execution == expected)
    }

    @Test func skippedToolIsAnError() throws {
        let line =
            #"{"type":"tool_execution_end","toolCallId":"t","toolName":"bash","result":{"content":[{"type":"text","text":"Skipped due to queued user message."}],"details":{}},"isError":true}"#
        let execution = try #require(try read(line).toolExecution)
        #expect(execution.isError == true)
        #expect(execution.resultText == "Skipped due to queued user message.")
        #expect(execution.diff == nil)
        #expect(execution.exitCode == nil)
    }

    @Test func toolOutputIsCappedOnACharacterBoundary() throws {
        // 'é' is two bytes: a 5-byte cap falls inside the third one.
        let capped = PiEventReader(toolResultTextLimit: 5, diffLimit: 3)
        let line =
            #"{"type":"tool_execution_end","toolCallId":"t","result":{"content":[{"type":"text","text":"éééé"},{"type":"text","text":"more"}],"details":{"diff":"+😀x"}},"isError":false}"#
        let execution = try #require(try capped.read(line).toolExecution)
        #expect(execution.resultText == "éé")
        #expect(execution.resultTextTruncated)
        #expect(execution.diff == "+")
        #expect(execution.diffTruncated)
        let exact = PiEventReader(toolResultTextLimit: 8, diffLimit: 6)
        let fits = try #require(try exact.read(line.replacingOccurrences(#""more""#, #""""#)).toolExecution)
        #expect(fits.resultText == "éééé")
        #expect(!fits.resultTextTruncated)
        #expect(fits.diff == "+😀x")
        #expect(!fits.diffTruncated)
    }

    @Test func cappedOutputAcrossBlocksAndEscapes() throws {
        let capped = PiEventReader(toolResultTextLimit: 7)
        // Escapes count by their decoded size: \n is one byte, \u00e9 two.
        let line =
            #"{"type":"tool_execution_update","partialResult":{"content":[{"type":"text","text":"a\nb"},{"type":"text","text":"\u00e9\u00e9\u00e9"}]}}"#
        let execution = try #require(try capped.read(line).toolExecution)
        #expect(execution.resultText == "a\nbéé")
        #expect(execution.resultTextTruncated)
    }
}
