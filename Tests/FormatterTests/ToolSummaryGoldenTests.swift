import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// One line per tool, fed the shapes pi emits: `tool_execution_start.args` with the built-in
/// argument names, `tool_execution_end.result.content` text as `output`, `result.details`.
@Suite struct ToolSummaryGoldenTests {
    func line(_ call: JSONValue, width: Int = 80) throws -> String {
        ToolSummary(call: RunView.ToolCall(json: call), argumentWidth: width, redactor: try Redactor(patterns: [])).line
    }

    @Test func bashSucceeded() throws {
        #expect(
            try line(RunFixture.call("bash", ["command": "ls -la Sources"], output: "total 8\ndrwxr-xr-x  2 me me 4096 .\n"))
                == "🔧 `$ ls -la Sources`")
    }

    /// The model's raw arguments (pi-rpc: `tool_execution_start.args` before validation): a
    /// line number near Int.max is shown, not added up until the formatter traps.
    @Test func aHugeReadRangeDoesNotOverflow() throws {
        let call = RunFixture.call("read", ["path": "a", "offset": "9223372036854775807", "limit": "2"])
        #expect(try line(call) == "🔧 read `a` (from line 9223372036854775807)")
    }

    /// A CR LF is one Character, so a command holding one stayed on two lines, and a line of
    /// three backticks after it opened a code fence over the rest of the answer.
    @Test func aCarriageReturnLineFeedInACommandStaysOnOneLine() throws {
        let text = try line(RunFixture.call("bash", ["command": "printf 'a\r\n```\r\nb'"]))
        #expect(!text.utf8.contains(0x0A) && !text.utf8.contains(0x0D), "\(Array(text.utf8))")
    }

    @Test func bashFailedWithPiExitLine() throws {
        // pi appends "Command exited with code N" to a failed command's output.
        let call = RunFixture.call(
            "bash", ["command": "grep \"borderColor\" packages/coding-agent/src/tui/custom-editor.ts"],
            isError: true, output: "Command exited with code 1")
        #expect(try line(call) == "❌ `$ grep \"borderColor\" packages/coding-agent/src/tui/custom-editor.ts` (exit 1)")
    }

    @Test func bashFailedWithExitCodeInTheMiddleOfOutput() throws {
        let call = RunFixture.call(
            "bash", ["command": "make test", "timeout": 120], isError: true,
            output: "error: build failed\nmake: *** [test] Error 2\n\nexit code 2")
        #expect(try line(call) == "❌ `$ make test` (exit 2)")
    }

    @Test func bashExitCodeFromDetails() throws {
        let call = RunFixture.call("bash", ["command": "false"], isError: true, output: "", details: ["exitCode": 1])
        #expect(try line(call) == "❌ `$ false` (exit 1)")
    }

    @Test func bashTimedOut() throws {
        let call = RunFixture.call(
            "bash", ["command": "sleep 999", "timeout": 5], isError: true,
            output: "Command timed out after 5 seconds")
        #expect(try line(call) == "❌ `$ sleep 999` (timed out)")
    }

    @Test func bashStillRunning() throws {
        #expect(try line(RunFixture.call("bash", ["command": "swift build"], done: false)) == "⏳ `$ swift build`")
    }

    @Test func longCommandIsElidedInTheMiddle() throws {
        let command = "find . -name '*.swift' -not -path './.build/*' | xargs wc -l | sort -n | tail -20 && echo done-with-counting"
        let text = try line(RunFixture.call("bash", ["command": .string(command)]), width: 40)
        #expect(text == "🔧 `$ find . -name '*.sw… done-with-counting`")
        #expect(text.hasSuffix("done-with-counting`"))
    }

    @Test func multiLineCommandStaysOnOneLine() throws {
        let text = try line(RunFixture.call("bash", ["command": "cat > notes.txt <<'EOF'\nhello\nEOF"]))
        #expect(text == "🔧 `$ cat > notes.txt <<'EOF' ↵ hello ↵ EOF`")
    }

    @Test func commandWithBackticksUsesALongerCodeSpan() throws {
        #expect(try line(RunFixture.call("bash", ["command": "echo `date`"])) == "🔧 `` $ echo `date` ``")
    }

    @Test func readWholeFile() throws {
        #expect(try line(RunFixture.call("read", ["path": "Sources/App/main.swift"])) == "🔧 read `Sources/App/main.swift`")
    }

    @Test func readWithOffsetAndLimit() throws {
        #expect(try line(RunFixture.call("read", ["path": "README.md", "offset": 120, "limit": 40])) == "🔧 read `README.md` (lines 120–159)")
        #expect(try line(RunFixture.call("read", ["path": "README.md", "offset": 300])) == "🔧 read `README.md` (from line 300)")
        #expect(try line(RunFixture.call("read", ["path": "README.md", "limit": 50])) == "🔧 read `README.md` (lines 1–50)")
    }

    @Test func readFailed() throws {
        let call = RunFixture.call("read", ["path": "missing.txt"], isError: true, output: "ENOENT: no such file or directory, access 'missing.txt'")
        #expect(try line(call) == "❌ read `missing.txt`")
    }

    @Test func editCountsPiDiffLines() throws {
        // pi's edit diff: "+NN line", "-NN line", " NN line", with "..." for skipped context.
        let diff = """
             1 import Foundation
             2 
            -3 let limit = 1000
            +3 let limit = 2000
            +4 let margin = 16
             5 
               ...
            """
        let call = RunFixture.call(
            "edit", ["path": "Sources/Config.swift", "oldText": "let limit = 1000", "newText": "let limit = 2000\nlet margin = 16"],
            output: "Successfully replaced text in Sources/Config.swift.",
            details: ["diff": .string(diff), "firstChangedLine": 3])
        #expect(try line(call) == "🔧 edit `Sources/Config.swift` (+2 −1)")
    }

    @Test func editCountsAUnifiedDiffWithoutItsHeaders() throws {
        let diff = """
            --- a/schema.sql
            +++ b/schema.sql
            @@ -1,4 +1,3 @@
             CREATE TABLE t (
            --- old comment
            -  a INT,
            +  a BIGINT,
               b TEXT
            """
        let call = RunFixture.call("edit", ["path": "schema.sql", "oldText": "x", "newText": "y"], details: ["diff": .string(diff)])
        #expect(try line(call) == "🔧 edit `schema.sql` (+1 −2)")
    }

    @Test func editWithoutDiffYet() throws {
        #expect(try line(RunFixture.call("edit", ["path": "a.swift", "oldText": "x", "newText": "y"], done: false)) == "⏳ edit `a.swift`")
    }

    @Test func writeCountsContentLines() throws {
        #expect(
            try line(RunFixture.call("write", ["path": "notes/todo.md", "content": "# Todo\n\n- one\n- two\n"]))
                == "🔧 write `notes/todo.md` (4 lines)")
        #expect(try line(RunFixture.call("write", ["path": "one.txt", "content": "no newline"])) == "🔧 write `one.txt` (1 line)")
        #expect(try line(RunFixture.call("write", ["path": "empty.txt", "content": ""])) == "🔧 write `empty.txt` (empty)")
    }

    @Test func grepFindAndLs() throws {
        #expect(
            try line(RunFixture.call("grep", ["pattern": "TODO|FIXME", "path": "Sources", "glob": "*.swift", "ignoreCase": true]))
                == "🔧 grep `TODO|FIXME` in `Sources`")
        #expect(try line(RunFixture.call("grep", ["pattern": "func main"])) == "🔧 grep `func main`")
        #expect(try line(RunFixture.call("find", ["pattern": "**/*.test.ts", "path": "packages"])) == "🔧 find `**/*.test.ts` in `packages`")
        #expect(try line(RunFixture.call("ls", ["path": "Sources/plugins"])) == "🔧 ls `Sources/plugins`")
        #expect(try line(RunFixture.call("ls", [:])) == "🔧 ls `.`")
    }

    @Test func unknownToolShowsNameAndCompactArgs() throws {
        let call = RunFixture.call("mcp__github__search_issues", ["query": "is:open label:bug", "limit": 5])
        #expect(try line(call) == "🔧 mcp\\_\\_github\\_\\_search\\_issues `{\"limit\":5,\"query\":\"is:open label:bug\"}`")
        #expect(try line(RunFixture.call("todo_list", [:])) == "🔧 todo\\_list")
    }

    @Test func secretsInArgumentsAreRedactedBeforeElision() throws {
        let key = "sk-ant-api03-" + String(repeating: "Xy9", count: 30)
        let text = try line(
            RunFixture.call("bash", ["command": .string("curl -H 'x-api-key: \(key)' https://api.anthropic.com/v1/messages")]), width: 60)
        #expect(!text.contains("Xy9Xy9"))
        #expect(text.contains("x-api-key: [REDACTE"))
    }

    /// `/progress verbose` shows a call's last output lines: a private key's body lines are masked
    /// too, though its BEGIN line is not among them (each line was masked alone).
    @Test func theOutputPreviewMasksAKeyWhoseBeginLineIsAboveIt() throws {
        let body = ["MIIEowIBAAKCAQEAq1ExampleKeyBodyLineOne0123456789abcdefABCDEF", "Z2V0IGEgam9iIGRvbmUgd2l0aCB0aGlzIGtleSBib2R5IGxpbmUgdHdvABCDE"]
        let output = "-----BEGIN RSA PRIVATE KEY-----\n" + body.joined(separator: "\n") + "\n-----END RSA PRIVATE KEY-----\n"
        let call = RunView.ToolCall(id: "t1", name: "bash", args: ["command": "cat id_rsa"], output: output)
        var group = ToolGroup(calls: [call], maxLines: 5, argumentWidth: 200)
        group.outputLines = 3
        let shown = group.lines(redactor: try Redactor(patterns: [])).joined(separator: "\n")
        for line in body { #expect(!shown.contains(line.prefix(24)), "\(shown)") }
    }

    @Test func parallelCallsAreGroupedAndCapped() throws {
        let calls = (1...12).map { i in
            RunView.ToolCall(json: RunFixture.call("read", ["path": .string("file\(i).swift")], id: "t\(i)", isError: i == 12))
        }
        let lines = ToolGroup(calls: calls, maxLines: 5, argumentWidth: 80).lines(redactor: try Redactor(patterns: []))
        #expect(
            lines == [
                "🔧 read `file1.swift`", "🔧 read `file2.swift`", "🔧 read `file3.swift`", "🔧 read `file4.swift`",
                "… 8 more calls (1 failed)",
            ])
    }

    @Test func aToolsItemRendersUnderItsAssistantMessage() throws {
        let run = try RunFixture.view(
            RunFixture.run([
                RunFixture.text("Let me look."),
                RunFixture.tools([RunFixture.call("read", ["path": "a.swift"], id: "1"), RunFixture.call("read", ["path": "b.swift"], id: "2")]),
                RunFixture.tools([RunFixture.call("bash", ["command": "swift test"], id: "3", isError: true, output: "Command exited with code 1")]),
                RunFixture.text("Tests fail."),
            ]))
        let doc = RunRenderer(config: FormatterConfig(), redactor: try Redactor(patterns: []), target: .chat).document(run)
        #expect(doc == "Let me look.\n\n🔧 read `a.swift`\n🔧 read `b.swift`\n\n❌ `$ swift test` (exit 1)\n\nTests fail.\n")
    }
}
